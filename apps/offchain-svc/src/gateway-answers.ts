/** Signed CCIP-Read answers: read and signed once, then served from the answer cache while it holds them. */
import { signOffchainResolverResponse } from '@nrp/chain';
import type { Hex } from '@nrp/ens';
import { renderJson, type RenderedJson } from '@nrp/server';
import type { AnswerCache } from './answer-cache';
import type { Kysely } from 'kysely';
import type { OffchainContext } from './context';
import type { OffchainDatabase } from './data/schema';
import { findRecordsByName } from './data/subnames';
import { answerCalls, decodeLookup, gatewayProblem, type GatewayLookup } from './gateway';
import { offchainProblems } from './problems';

export interface GatewaySigning {
  /** Unset: the gateway answers 503 GATEWAY_NOT_CONFIGURED. */
  signerKey?: string;
  ttlSeconds: number;
  /** Clock in ms. */
  now: () => number;
}

const notConfigured = () =>
  gatewayProblem(offchainProblems.GATEWAY_NOT_CONFIGURED, 'This gateway has no signing key.');

/** The body of a signed answer. */
interface SignedAnswer {
  data: string;
}

/**
 * The signed EIP-3668 answer to a decoded lookup for `sender` and its `callData`: the resolver call(s) answered from
 * the stored records of the name (every record unset for a name the service does not hold), `abi.encode(result,
 * expires, signature)` with `expires` = now + ttlSeconds. One indexed read and one signature.
 */
async function answerLookup(
  db: Kysely<OffchainDatabase>,
  signing: GatewaySigning & { signerKey: string },
  sender: string,
  callData: string,
  lookup: GatewayLookup,
): Promise<SignedAnswer> {
  const records = lookup.name === undefined ? undefined : await findRecordsByName(db, lookup.name);
  const result = answerCalls(lookup, records);
  const expires = Math.floor(signing.now() / 1000) + signing.ttlSeconds;
  const data = signOffchainResolverResponse({
    signerKey: signing.signerKey,
    sender,
    request: callData,
    result: `0x${result.toString('hex')}` as Hex,
    expires,
  });
  return { data };
}

/** The cache key of a lookup: hex is compared case-insensitively. */
function cacheKey(sender: string, callData: string): string {
  return `${sender}:${callData}`.toLowerCase();
}

/**
 * The answer `cache` holds for `callData` from `sender`, without waiting: a hot lookup is answered in its own tick,
 * with the bytes rendered when it was signed.
 */
export function cachedCcipAnswer(
  cache: AnswerCache<RenderedJson>,
  sender: string,
  callData: string,
): RenderedJson | undefined {
  return cache.get(cacheKey(sender, callData));
}

/**
 * The answer to `callData` for `sender` when `cache` does not hold one (the caller looked with `cachedCcipAnswer`),
 * rendered: decoded, admitted by `admit` (the gateway's ceiling: only valid requests that need a read count), read
 * and signed, then cached (for less than the signature's TTL, dropped when the name is written). callData that fails
 * to decode is refused before any read and never stored.
 */
export async function answerCcipRequest(
  { db, caches }: Pick<OffchainContext, 'db' | 'caches'>,
  signing: GatewaySigning,
  request: { sender: string; callData: string; admit: () => Promise<void> },
): Promise<RenderedJson> {
  const { signerKey } = signing;
  if (!signerKey) throw notConfigured();
  const { sender, callData } = request;
  const cache = caches.gateway;
  const generation = cache.generation();
  const lookup = decodeLookup(callData);
  await request.admit();
  const answer = renderJson(await answerLookup(db, { ...signing, signerKey }, sender, callData, lookup));
  const bytes = answer.body.length + 2 * answer.etag.length;
  cache.set(
    cacheKey(sender, callData),
    answer,
    bytes,
    lookup.name === undefined ? [] : [lookup.name],
    generation,
  );
  return answer;
}
