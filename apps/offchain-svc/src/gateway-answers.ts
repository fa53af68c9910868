/** Signed CCIP-Read answers: read and signed once, then served from the answer cache while it holds them. */
import { signOffchainResolverResponse } from '@nrp/chain';
import { renderJson, type RenderedJson } from '@nrp/server';
import type { AnswerCache } from './answer-cache';
import type { GatewayRecordReads } from './gateway-reads';
import { answerCalls, decodeLookup, gatewayProblem } from './gateway';
import { offchainProblems } from './problems';

export interface GatewaySigning {
  /** Unset: the gateway answers 503 GATEWAY_NOT_CONFIGURED. */
  signerKey?: string;
  ttlSeconds: number;
  /** Clock in ms. */
  now: () => number;
}

/** The signing key, or 503 GATEWAY_NOT_CONFIGURED when the operator set none. */
export function signerKeyOf(signing: GatewaySigning): string {
  if (!signing.signerKey) {
    throw gatewayProblem(offchainProblems.GATEWAY_NOT_CONFIGURED, 'This gateway has no signing key.');
  }
  return signing.signerKey;
}

/**
 * The signed EIP-3668 answer to `callData` from `sender`, rendered: `abi.encode(result, expires, signature)` with
 * `expires` = now + ttlSeconds, the one signing path of both gateways.
 */
export function signAnswer(
  signing: GatewaySigning,
  request: { sender: string; callData: string },
  result: Buffer,
): RenderedJson {
  const data = signOffchainResolverResponse({
    signerKey: signerKeyOf(signing),
    sender: request.sender,
    request: request.callData,
    result,
    expires: Math.floor(signing.now() / 1000) + signing.ttlSeconds,
  });
  return renderJson({ data });
}

/** What a rendered answer takes in an answer cache. */
export function renderedBytes(answer: RenderedJson): number {
  return answer.body.length + 2 * answer.etag.length;
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
 * (with the concurrent lookups that can share the read) and signed, then cached (for less than the signature's TTL, dropped when the name is written). callData that fails
 * to decode is refused before any read and never stored.
 */
export async function answerCcipRequest(
  {
    caches,
    gatewayReads,
  }: { caches: { gateway: AnswerCache<RenderedJson> }; gatewayReads: GatewayRecordReads },
  signing: GatewaySigning,
  request: { sender: string; callData: string; admit: () => Promise<void> },
): Promise<RenderedJson> {
  signerKeyOf(signing); // 503 before any work when no key is set
  const { sender, callData } = request;
  const cache = caches.gateway;
  const generation = cache.generation();
  const lookup = decodeLookup(callData);
  await request.admit();
  const records = lookup.name === undefined ? undefined : await gatewayReads.read(lookup.name);
  const answer = signAnswer(signing, request, answerCalls(lookup, records));
  cache.set(
    cacheKey(sender, callData),
    answer,
    renderedBytes(answer),
    lookup.name === undefined ? [] : [lookup.name],
    generation,
  );
  return answer;
}
