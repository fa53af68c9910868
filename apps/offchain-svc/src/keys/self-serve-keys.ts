import type { ApiKey, CreatedKey, CreateKeyInput } from '@nrp/api';
import { isNetworkName, type NameControl, type NetworkName } from '@nrp/chain';
import { getAddress } from 'ethers';
import { ProblemError } from '@nrp/validation';
import { issueSelfServeApiKey } from './api-keys';
import type { OffchainContext } from '../context';
import { listIssuedApiKeys, revokeIssuedApiKey, type ApiKeyRow } from '../data/api-keys';
import { offchainProblems } from '../problems';
import type { SignedInSession } from './sessions';

type CreateKeyRequest = Required<Pick<CreateKeyInput, 'parentName' | 'includeDescendants'>> & {
  network: NetworkName;
  note?: string;
};

/** Why `address` may not manage the name: who controls it, and whether the address only holds the .eth registration. */
function notManagerDetail(name: string, network: NetworkName, address: string, control: NameControl): string {
  const who = control.controller
    ? `${name} is controlled by ${control.controller} on ${network} (${
        control.wrapped ? 'its NameWrapper owner' : 'its registry owner'
      })`
    : `Nobody controls ${name} on ${network}`;
  const registrant =
    control.registrant !== null && control.registrant.toLowerCase() === address.toLowerCase()
      ? `; ${getAddress(address)} is its .eth registrant but not its registry owner, which is not enough: reclaim ` +
        'the name (BaseRegistrar reclaim) to control it'
      : `, not by ${getAddress(address)}`;
  return `${who}${registrant}.`;
}

function toApiKey(row: ApiKeyRow): ApiKey {
  const network = row.issued?.network;
  return {
    id: row.id,
    parentName: row.parents[0] ?? '',
    network: isNetworkName(network) ? network : 'mainnet',
    includeDescendants: row.includeDescendants,
    note: row.note,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt && row.lastUsedAt.toISOString(),
  };
}

/**
 * Issues an API key for `parentName` to the signed-in address when it controls the name on chain now (read afresh,
 * not from the cache); 403 NOT_NAME_MANAGER naming the controller otherwise, with nothing stored. The key is
 * returned once; only its hash is kept.
 */
export async function createKey(
  ctx: Pick<OffchainContext, 'db' | 'nameControl' | 'config'>,
  session: SignedInSession,
  request: CreateKeyRequest,
): Promise<CreatedKey> {
  const { parentName, network } = request;
  const control = await ctx.nameControl.read(network, parentName, { fresh: true });
  if (control.controller?.toLowerCase() !== session.address) {
    throw new ProblemError(
      offchainProblems.NOT_NAME_MANAGER,
      notManagerDetail(parentName, network, session.address, control),
    );
  }
  const limit = ctx.config.KEYS_PER_ADDRESS;
  const issued = await issueSelfServeApiKey(
    ctx,
    parentName,
    {
      note: request.note,
      issued: { issuer: session.address, network },
      includeDescendants: request.includeDescendants,
    },
    limit,
  );
  if (!issued) {
    throw new ProblemError(
      offchainProblems.KEY_LIMIT_REACHED,
      `${getAddress(session.address)} holds ${limit} live API keys, the most one address may hold.`,
    );
  }
  const { key, row } = issued;
  const { lastUsedAt: _never, ...shown } = toApiKey(row);
  return { ...shown, key };
}

/** The live keys the signed-in address issued (no secrets). */
export async function listKeys(
  ctx: Pick<OffchainContext, 'db' | 'config'>,
  session: SignedInSession,
): Promise<{ items: ApiKey[] }> {
  const keys = await listIssuedApiKeys(ctx.db, session.address, ctx.config.KEYS_PER_ADDRESS);
  return { items: keys.map(toApiKey) };
}

/** Revokes a key the signed-in address issued, at once; 404 KEY_NOT_FOUND for any other id. */
export async function revokeKey(
  ctx: Pick<OffchainContext, 'db'>,
  session: SignedInSession,
  id: string,
): Promise<void> {
  if (!(await revokeIssuedApiKey(ctx.db, id, session.address))) {
    throw new ProblemError(
      offchainProblems.KEY_NOT_FOUND,
      `The signed-in address has no live API key with id ${id}.`,
    );
  }
}
