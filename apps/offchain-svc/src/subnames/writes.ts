import { namehash } from '@nrp/ens';
import type { CreateSubnameData, OffchainSubname } from '@nrp/api';
import type { Kysely } from 'kysely';
import type { OffchainDatabase } from '../data/schema';
import { upsertSubname, upsertSubnames, type SubnameWrite } from '../data/subnames';
import type { EventRecorder } from '../context';
import { subnameEvent } from '../webhooks/events';

function toMap(
  entries: Array<{ key: string; value: string }> | undefined,
): Record<string, string> | undefined {
  return entries && Object.fromEntries(entries.map((e) => [e.key, e.value]));
}

/** The validated body → one write; absent fields stay undefined so the stored values are kept. */
export function toWrite(body: CreateSubnameData): SubnameWrite {
  const fullName = `${body.label}.${body.parentName}`;
  return {
    fullName,
    parentName: body.parentName,
    label: body.label,
    namehash: namehash(fullName).toLowerCase(),
    owner: body.owner,
    texts: toMap(body.texts),
    addresses: body.addresses && Object.fromEntries(body.addresses.map((a) => [String(a.coin), a.value])),
    metadata: toMap(body.metadata),
    contenthash: body.contenthash,
    ttl: body.ttl,
  };
}

export interface SavedSubname {
  subname: OffchainSubname;
  created: boolean;
}

/**
 * Applies the writes in order inside `trx` (one statement for a single write, set-based statements for a batch),
 * and records a `subname.created` / `subname.updated` event per write in the same transaction.
 */
export async function applyWrites(
  trx: Kysely<OffchainDatabase>,
  events: EventRecorder,
  writes: SubnameWrite[],
): Promise<SavedSubname[]> {
  if (writes.length === 0) return [];
  const saved =
    writes.length === 1 && writes[0]
      ? [await upsertSubname(trx, writes[0])]
      : await upsertSubnames(trx, writes);
  await events.record(
    trx,
    saved.map(({ subname, created }) =>
      subnameEvent(created ? 'subname.created' : 'subname.updated', subname),
    ),
  );
  return saved;
}
