import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, outboundUrlRefusal } from '@nrp/chain';
import { AvatarUnavailableError } from './avatar-uri';

/** Limits of one outbound fetch of a record's image or NFT metadata (redirects included). */
export interface FetchLimits {
  /** Origins exempt from the URL policy (development, tests, and the configured IPFS/Arweave gateways). */
  allowedOrigins: readonly string[];
  timeoutMs: number;
  maxBytes: number;
}

const MAX_REDIRECTS = 3;
const PRIVATE_TARGET = 'ERR_PRIVATE_TARGET';

/**
 * A DNS lookup that refuses host names resolving to private, loopback or link-local addresses and hands the
 * socket exactly the addresses it checked: the connection is pinned to them, so a rebinding host cannot switch
 * to an internal address between the check and the connect.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
    if (err) {
      callback(err, '', 0);
      return;
    }
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    const first = addresses[0];
    if (bad || !first) {
      const refused = Object.assign(
        new Error(`${hostname} resolves to ${bad?.address ?? 'nothing'}, not a public address`),
        { code: PRIVATE_TARGET },
      );
      callback(refused, '', 0);
      return;
    }
    if (options.all) (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    else callback(null, first.address, first.family);
  });
};

interface Hop {
  status: number;
  location?: string;
  contentType?: string;
  bytes?: Buffer;
}

function requestOnce(url: URL, limits: FetchLimits, accept: string, signal: AbortSignal): Promise<Hop> {
  const allowed = limits.allowedOrigins.includes(url.origin);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Hop>((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'GET',
        headers: { accept, 'user-agent': 'nrp-metadata-svc' },
        signal,
        ...(allowed ? {} : { lookup: publicOnlyLookup }),
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          resolve({ status, ...(res.headers.location ? { location: res.headers.location } : {}) });
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          resolve({ status });
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          res.destroy();
          reject(
            new AvatarUnavailableError(
              'too-large',
              `${url.href} declares ${declared} bytes; at most ${limits.maxBytes}.`,
            ),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            res.destroy();
            reject(
              new AvatarUnavailableError(
                'too-large',
                `${url.href} sends more than ${limits.maxBytes} bytes.`,
              ),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status,
            bytes: Buffer.concat(chunks),
            ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * GETs `href` under the outbound URL policy (https to public hosts only, unless the origin is allowed; DNS pinned
 * to the checked addresses), following at most 3 redirects (each checked again), within `timeoutMs` overall and
 * `maxBytes` of body. Every failure is an AvatarUnavailableError (`url-refused`, `fetch-failed`, `too-large`):
 * a remote's fault never becomes a 5xx of this service.
 */
export async function fetchBounded(
  href: string,
  limits: FetchLimits,
  accept: string,
): Promise<{ url: string; bytes: Buffer; contentType?: string }> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = href;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const refusal = outboundUrlRefusal(current, { allowedOrigins: limits.allowedOrigins });
    if (refusal !== null)
      throw new AvatarUnavailableError('url-refused', `${current} is refused: ${refusal}.`);
    const url = new URL(current);
    let answer: Hop;
    try {
      answer = await requestOnce(url, limits, accept, signal);
    } catch (err) {
      if (err instanceof AvatarUnavailableError) throw err;
      if ((err as { code?: string }).code === PRIVATE_TARGET) {
        throw new AvatarUnavailableError('url-refused', `${current} is refused: ${(err as Error).message}.`);
      }
      const why = signal.aborted ? `no answer within ${limits.timeoutMs} ms` : (err as Error).message;
      throw new AvatarUnavailableError('fetch-failed', `${current}: ${why}.`);
    }
    if (answer.bytes) {
      return {
        url: current,
        bytes: answer.bytes,
        ...(answer.contentType ? { contentType: answer.contentType } : {}),
      };
    }
    if (!answer.location)
      throw new AvatarUnavailableError('fetch-failed', `${current} answered HTTP ${answer.status}.`);
    current = new URL(answer.location, url).href;
  }
  throw new AvatarUnavailableError('fetch-failed', `${href} redirects more than ${MAX_REDIRECTS} times.`);
}
