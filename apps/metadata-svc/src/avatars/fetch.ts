import {
  OutboundTooLargeError,
  OutboundUrlRefusedError,
  outboundRequest,
  type OutboundAnswer,
} from '@nrp/chain';
import type { Logger } from '@nrp/server';
import { AvatarUnavailableError } from './uri';

/** Limits of one outbound fetch of a record's image or NFT metadata (redirects included). */
export interface FetchLimits {
  /** Origins exempt from the URL policy (development, tests, and the configured IPFS/Arweave gateways). */
  allowedOrigins: readonly string[];
  timeoutMs: number;
  maxBytes: number;
}

const MAX_REDIRECTS = 3;

/**
 * GETs `href` with `outboundRequest` of `@nrp/chain` (https to public hosts only unless the origin is allowed, DNS
 * pinned to the checked addresses), following at most 3 redirects (each checked again), within `timeoutMs` overall
 * and `maxBytes` of body. Every failure is an AvatarUnavailableError: `url-refused` when the URL's own text is
 * refused, `too-large`, and `fetch-failed` with one detail for everything else (no answer, a refused address, an
 * error status, too many redirects), so the answer never tells an open port from a closed one or a host's DNS
 * answers; the cause is logged at debug level.
 */
export async function fetchBounded(
  href: string,
  limits: FetchLimits,
  accept: string,
  logger: Logger,
): Promise<{ url: string; bytes: Buffer }> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const policy = { allowedOrigins: limits.allowedOrigins };
  const gaveNothing = (cause: unknown) => {
    logger.debug({ err: cause, url: href }, 'avatar fetch failed');
    return new AvatarUnavailableError(
      'fetch-failed',
      'The URL gave no image: no answer, or an error answer.',
    );
  };
  let current = href;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let answer: OutboundAnswer;
    try {
      answer = await outboundRequest(current, {
        headers: { accept, 'user-agent': 'nrp-metadata-svc' },
        policy,
        signal,
        maxBytes: limits.maxBytes,
      });
    } catch (err) {
      if (err instanceof OutboundUrlRefusedError) {
        throw new AvatarUnavailableError('url-refused', `${current} is refused: ${err.reason}.`);
      }
      if (err instanceof OutboundTooLargeError) {
        throw new AvatarUnavailableError('too-large', `The answer is larger than ${limits.maxBytes} bytes.`);
      }
      throw gaveNothing(err);
    }
    const { status, headers } = answer;
    if (status >= 200 && status < 300) return { url: current, bytes: answer.body };
    if (status < 300 || status >= 400 || !headers.location) throw gaveNothing(`HTTP ${status}`);
    current = new URL(headers.location, current).href;
  }
  throw gaveNothing(`more than ${MAX_REDIRECTS} redirects`);
}
