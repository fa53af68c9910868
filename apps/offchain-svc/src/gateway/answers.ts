/**
 * Signed CCIP-Read answers of both gateways (offchain names and L2 names): decoded, read, signed once, then served
 * from the gateway's answer cache while it holds them.
 */
import { signOffchainResolverResponse, type L2NetworkName } from '@nrp/chain';
import { renderJson, type RenderedJson } from '@nrp/server';
import type { AnswerCache } from './answer-cache';
import type { L2RecordReader } from './l2-records';
import { answerCalls, decodeLookup, encodeLookupResult, gatewayProblem, type GatewayLookup } from './lookup';
import type { GatewayRecordReads } from './record-reads';
import { offchainProblems } from '../problems';

export interface GatewaySigning {
  /** Unset: the gateway answers 503 GATEWAY_NOT_CONFIGURED. */
  signerKey?: string;
  ttlSeconds: number;
  /** Clock in ms. */
  now: () => number;
}

/** One EIP-3668 request: the `resolve(bytes,bytes)` callData, and who asks (the resolver, or a universal resolver). */
export interface CcipRequest {
  sender: string;
  callData: string;
}

/** One EIP-3668 request to the L2 gateway: the registry to read on `network`, and the lookup. */
export interface L2CcipRequest extends CcipRequest {
  network: L2NetworkName;
  registry: string;
}

/** Where one gateway's answers come from: its cache, a request's key in it, and the read of a decoded lookup. */
export interface AnswerSource<Request extends CcipRequest> {
  cache: AnswerCache<RenderedJson>;
  /** Every part of the request that decides the answer (hex compared case-insensitively). */
  cacheKey(request: Request): string;
  /** The ABI-encoded result of the lookup, and the names it was read from (the tags a write drops it by). */
  read(request: Request, lookup: GatewayLookup): Promise<{ result: Buffer; tags: string[] }>;
}

/** The L2 gateway: the reader of our L2Registry contracts and the cache of its signed answers. */
export interface L2Gateway {
  reader: L2RecordReader;
  cache: AnswerCache<RenderedJson>;
}

/** The signing key, or 503 GATEWAY_NOT_CONFIGURED when the operator set none. */
function signerKeyOf(signing: GatewaySigning): string {
  if (!signing.signerKey) {
    throw gatewayProblem(offchainProblems.GATEWAY_NOT_CONFIGURED, 'This gateway has no signing key.');
  }
  return signing.signerKey;
}

/** `abi.encode(result, expires, signature)` for `request`, with `expires` = now + ttlSeconds, rendered. */
function signAnswer(signing: GatewaySigning, request: CcipRequest, result: Buffer): RenderedJson {
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
function renderedBytes(answer: RenderedJson): number {
  return answer.body.length + 2 * answer.etag.length;
}

/**
 * The answer `source`'s cache holds for `request`, without waiting: a hot lookup is answered in its own tick, with
 * the bytes rendered when it was signed.
 */
export function cachedAnswer<Request extends CcipRequest>(
  source: AnswerSource<Request>,
  request: Request,
): RenderedJson | undefined {
  return source.cache.get(source.cacheKey(request));
}

/**
 * The answer to `request` when the cache does not hold one (the caller looked with `cachedAnswer`), rendered, the
 * one answer path of both gateways: 503 before any work without a signing key; decoded (a 400 before any read,
 * never cached); admitted by `admit` (the gateway's ceiling: only valid requests that need a read count); read by
 * `source`; signed; cached (for less than the signature's TTL, unless a write dropped the names read since the
 * lookup began). A failed read throws its problem: nothing is signed or cached.
 */
export async function answerRequest<Request extends CcipRequest>(
  signing: GatewaySigning,
  source: AnswerSource<Request>,
  request: Request,
  admit: () => Promise<void>,
): Promise<RenderedJson> {
  signerKeyOf(signing);
  const generation = source.cache.generation();
  const lookup = decodeLookup(request.callData);
  await admit();
  const { result, tags } = await source.read(request, lookup);
  const answer = signAnswer(signing, request, result);
  source.cache.set(source.cacheKey(request), answer, renderedBytes(answer), tags, generation);
  return answer;
}

/**
 * Answers of offchain names, from the records in our database (read with the concurrent lookups that can share the
 * read), cached and dropped when the name is written. A name this service cannot hold answers every record unset.
 */
export function offchainAnswers(
  cache: AnswerCache<RenderedJson>,
  reads: GatewayRecordReads,
): AnswerSource<CcipRequest> {
  return {
    cache,
    cacheKey: ({ sender, callData }) => `${sender}:${callData}`.toLowerCase(),
    read: async (_request, lookup) => {
      if (lookup.name === undefined) return { result: answerCalls(lookup, undefined), tags: [] };
      return { result: answerCalls(lookup, await reads.read(lookup.name)), tags: [lookup.name] };
    },
  };
}

/**
 * Answers of L2 names: every record call read from the registry at one L2 block with node = namehash(the DNS-encoded
 * name), kept for L2_ANSWER_CACHE_MS (never dropped: offchain writes do not touch the L2). A name that does not
 * normalise answers every record empty without a read.
 */
export function l2Answers(gateway: L2Gateway): AnswerSource<L2CcipRequest> {
  return {
    cache: gateway.cache,
    cacheKey: ({ network, registry, sender, callData }) =>
      `${network}:${registry}:${sender}:${callData}`.toLowerCase(),
    read: async ({ network, registry }, lookup) => {
      if (lookup.name === undefined) return { result: answerCalls(lookup, undefined), tags: [] };
      const results = await gateway.reader.read(network, registry, lookup.name, lookup.calls);
      return { result: encodeLookupResult(lookup.multicall, results, (read) => read), tags: [] };
    },
  };
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
