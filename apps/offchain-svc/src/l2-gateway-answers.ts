/** Signed CCIP-Read answers for L2 names: read from the L2 registry at one block, signed, kept a moment. */
import type { L2NetworkName } from '@nrp/chain';
import type { RenderedJson } from '@nrp/server';
import type { AnswerCache } from './answer-cache';
import { answerCalls, decodeLookup, encodeLookupResult, gatewayProblem } from './gateway';
import { renderedBytes, signAnswer, signerKeyOf, type GatewaySigning } from './gateway-answers';
import type { L2RecordReader } from './l2-records';
import { offchainProblems } from './problems';

/** One EIP-3668 request to the L2 gateway: the registry to read on `network`, and the lookup. */
export interface L2CcipRequest {
  network: L2NetworkName;
  registry: string;
  sender: string;
  callData: string;
}

/** What the L2 gateway answers with: the reader, the cache of its signed answers, the signing settings. */
export interface L2Gateway {
  reader: L2RecordReader;
  cache: AnswerCache<RenderedJson>;
  signing: GatewaySigning;
}

/** The cache key: every part of the request (hex compared case-insensitively); the cache holds L2 answers only. */
function cacheKey(request: L2CcipRequest): string {
  return `${request.network}:${request.registry}:${request.sender}:${request.callData}`.toLowerCase();
}

/** 404 unless the registry is one this gateway serves on that network (checked before any other work). */
export function checkServedRegistry(
  gateway: L2Gateway,
  request: Pick<L2CcipRequest, 'network' | 'registry'>,
): void {
  if (!gateway.reader.serves(request.network, request.registry)) {
    throw gatewayProblem(
      offchainProblems.L2_REGISTRY_NOT_SERVED,
      `This gateway does not serve L2Registry ${request.registry} on ${request.network}.`,
    );
  }
}

/** The signed answer the cache holds for this identical request, without waiting (younger than L2_ANSWER_CACHE_MS). */
export function cachedL2Answer(gateway: L2Gateway, request: L2CcipRequest): RenderedJson | undefined {
  return gateway.cache.get(cacheKey(request));
}

/**
 * The answer to an L2 lookup of a served registry (`checkServedRegistry`) that the cache does not hold: decoded (a
 * 400 before any read, never cached), admitted by `admit` (the gateway ceiling), every record call read from the
 * registry at one L2 block with node = namehash(the DNS-encoded name), signed and cached. A name that does not
 * normalise answers every record empty without a read. A failed read throws its problem: nothing signed or cached.
 */
export async function answerL2Request(
  gateway: L2Gateway,
  request: L2CcipRequest & { admit: () => Promise<void> },
): Promise<RenderedJson> {
  signerKeyOf(gateway.signing); // 503 before any work when no key is set
  const lookup = decodeLookup(request.callData);
  await request.admit();
  const { name } = lookup;
  let result: Buffer;
  if (name === undefined) {
    result = answerCalls(lookup, undefined);
  } else {
    const results = await gateway.reader.read(request.network, request.registry, name, lookup.calls);
    result = encodeLookupResult(lookup.multicall, results, (read) => read);
  }
  const answer = signAnswer(gateway.signing, request, result);
  gateway.cache.set(cacheKey(request), answer, renderedBytes(answer), [], gateway.cache.generation());
  return answer;
}
