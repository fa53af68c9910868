import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  isAllowedOrigin,
  outboundUrlRefusal,
  publicOnlyLookup,
  type OutboundUrlPolicy,
} from './outbound-url-policy';

/** The URL policy refuses the URL from its text (`reason` says why, from the URL alone). */
export class OutboundUrlRefusedError extends Error {
  override name = 'OutboundUrlRefusedError';
  constructor(readonly reason: string) {
    super(`URL refused: ${reason}`);
  }
}

/**
 * Nothing usable answered: the host does not resolve or resolves to a non-public address, the connection was
 * refused, reset or timed out, TLS failed. One message for all of them, so an answer built from it cannot tell a
 * closed port from an open one or a refused address from an unreachable one; `cause` keeps the detail for logs.
 */
export class OutboundNoAnswerError extends Error {
  override name = 'OutboundNoAnswerError';
  constructor(cause: unknown) {
    super('no answer', { cause });
  }
}

/** The answer's body is larger than allowed (declared or read). */
export class OutboundTooLargeError extends Error {
  override name = 'OutboundTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`answer larger than ${maxBytes} bytes`);
  }
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  policy: OutboundUrlPolicy;
  /** Ends the request (and the read of its body) when it aborts: the request's whole time budget. */
  signal: AbortSignal;
  /** Largest body read; a larger one is OutboundTooLargeError. 0: the body is not read at all. */
  maxBytes: number;
}

export interface OutboundAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Empty for a redirect (3xx; never followed: the caller checks its `location` like any URL) and when maxBytes is 0. */
  body: Buffer;
}

/**
 * Keep-alive pools of every outbound request. An idle socket is dropped after 2 s, before the usual 5 s keep-alive
 * timeout of a server could close it just as a request reuses it (ECONNRESET under bursts).
 */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: 2_000 }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: 2_000 }),
};

/**
 * The one outbound HTTP request of the platform for URLs someone else chose (webhooks, CCIP-Read gateways,
 * avatars and NFT metadata): the URL policy first (OutboundUrlRefusedError), then the request with its socket's
 * DNS lookup pinned to public addresses (unless the origin is allowed), within `signal`, reading at most `maxBytes`.
 * Redirects are answered, not followed. Fails with OutboundUrlRefusedError, OutboundNoAnswerError or
 * OutboundTooLargeError only.
 */
export function outboundRequest(url: string, request: OutboundRequest): Promise<OutboundAnswer> {
  const refusal = outboundUrlRefusal(url, request.policy);
  if (refusal !== null) return Promise.reject(new OutboundUrlRefusedError(refusal));
  return sendOnce(new URL(url), request, true);
}

function sendOnce(target: URL, request: OutboundRequest, retryStale: boolean): Promise<OutboundAnswer> {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const { maxBytes, signal } = request;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const fail = (err: unknown) =>
      reject(err instanceof OutboundTooLargeError ? err : new OutboundNoAnswerError(err));
    const req = send(
      target,
      {
        method: request.method ?? 'GET',
        headers: request.headers,
        signal,
        agent: target.protocol === 'https:' ? agents['https:'] : agents['http:'],
        ...(isAllowedOrigin(target, request.policy) ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const answer = (body: Buffer) => resolve({ status, headers: res.headers, body });
        if ((status >= 300 && status < 400) || maxBytes === 0) {
          res.resume();
          answer(Buffer.alloc(0));
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          fail(new OutboundTooLargeError(maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            fail(new OutboundTooLargeError(maxBytes));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => answer(Buffer.concat(chunks)));
        res.on('error', fail);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed just as it was reused: Node's advice is to send an idempotent request
      // again, which takes a new socket. Once, and only for GET.
      const stale = req.reusedSocket && err.code === 'ECONNRESET' && (request.method ?? 'GET') === 'GET';
      if (stale && retryStale) resolve(sendOnce(target, request, false));
      else fail(err);
    });
    req.end(request.body);
  });
}

/** JSON of an outbound answer is refused past this depth before it is parsed (the platform's nesting limit). */
export const OUTBOUND_JSON_MAX_DEPTH = 32;

/**
 * Parses a JSON answer of someone else's server, its size already bounded by the read: the text is first scanned
 * once for nesting deeper than `maxDepth` (which makes JSON.parse build huge object graphs from little text), so
 * a hostile document costs a linear scan. Throws a SyntaxError for invalid or too deeply nested JSON.
 */
export function parseOutboundJson(bytes: Buffer, maxDepth = OUTBOUND_JSON_MAX_DEPTH): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth++;
      if (depth > maxDepth) throw new SyntaxError(`JSON nested deeper than ${maxDepth} levels`);
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return JSON.parse(bytes.toString('utf8'));
}
