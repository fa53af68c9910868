import { sql, type Kysely } from 'kysely';
import type { OffchainDatabase } from './schema';

export interface StoredAnswer {
  requestHash: string;
  statusCode: number;
  response: unknown;
}

/**
 * Claims `key` for this request inside the caller's transaction. Undefined when the claim is new (the caller then
 * stores its answer with `storeAnswer` before committing); otherwise the answer stored by the first request. A
 * concurrent request with the same key waits on the claim's row until the first one commits (then it sees the
 * stored answer) or rolls back (then it claims the key itself).
 */
export async function claimIdempotencyKey(
  trx: Kysely<OffchainDatabase>,
  claim: { apiKeyId: string; key: string; requestHash: string },
): Promise<StoredAnswer | undefined> {
  const inserted = await trx
    .insertInto('offchain_idempotency_keys')
    .values({
      api_key_id: claim.apiKeyId,
      key: claim.key,
      request_hash: claim.requestHash,
      status_code: 0,
      response: 'null',
    })
    .onConflict((oc) => oc.columns(['api_key_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  if (inserted) return undefined;
  const row = await trx
    .selectFrom('offchain_idempotency_keys')
    .select(['request_hash', 'status_code', 'response'])
    .where('api_key_id', '=', claim.apiKeyId)
    .where('key', '=', claim.key)
    .executeTakeFirstOrThrow();
  return { requestHash: row.request_hash, statusCode: row.status_code, response: row.response };
}

export async function storeAnswer(
  trx: Kysely<OffchainDatabase>,
  claim: { apiKeyId: string; key: string },
  answer: { statusCode: number; response: unknown },
): Promise<void> {
  await trx
    .updateTable('offchain_idempotency_keys')
    .set({ status_code: answer.statusCode, response: sql`${JSON.stringify(answer.response)}::jsonb` })
    .where('api_key_id', '=', claim.apiKeyId)
    .where('key', '=', claim.key)
    .execute();
}

/** Forgets keys older than `hours`. */
export async function pruneIdempotencyKeys(db: Kysely<OffchainDatabase>, hours: number): Promise<number> {
  const result = await db
    .deleteFrom('offchain_idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - ${hours} * interval '1 hour'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
