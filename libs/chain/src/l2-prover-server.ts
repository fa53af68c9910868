/**
 * The HTTP face of an L2 prover outside our services (`npm run prover`): EIP-3668 lookups POSTed as
 * `{ "sender", "data" }` JSON to any path, answered `{ "data" }` (a resolver's URL without `{data}` is POSTed so
 * by viem, ethers and ensjs). 400 for a request that is not a proof request, 413 past MAX_PROVER_BODY_BYTES, 502
 * when the L1 or L2 RPC fails: never a proof of anything else. It stops as the services do: `close()` stops
 * accepting, answers the lookups in flight (closing their connections rather than keeping them alive) and cuts what
 * is still running after `graceMs`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { L2ProofRequestError, parseL2ProofRequest, type L2Prover } from './l2-proofs';

/** A lookup is a few hundred bytes; anything past this is refused unread. */
export const MAX_PROVER_BODY_BYTES = 256 * 1024;

export interface L2ProverServer {
  /** The URL to give a resolver (`http://host:port/`). */
  url: string;
  /** Resolves once the lookups in flight are answered (or cut after `graceMs`) and every connection is closed. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > MAX_PROVER_BODY_BYTES) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function answer(
  prover: L2Prover,
  req: IncomingMessage,
  res: ServerResponse,
  onError: (err: unknown) => void,
): Promise<void> {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type',
    });
    res.end();
    return;
  }
  if (req.method !== 'POST') return send(res, 405, { message: 'POST { "sender", "data" }' });
  const body = await readBody(req);
  if (body === undefined) return send(res, 413, { message: `body over ${MAX_PROVER_BODY_BYTES} bytes` });
  let request: { sender?: unknown; data?: unknown };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return send(res, 400, { message: 'body is not JSON' });
  }
  if (typeof request.sender !== 'string' || typeof request.data !== 'string')
    return send(res, 400, { message: 'body is { "sender", "data" }' });
  try {
    send(res, 200, { data: await prover.prove(parseL2ProofRequest(request.sender, request.data)) });
  } catch (err) {
    if (err instanceof L2ProofRequestError) return send(res, 400, { message: err.message });
    onError(err);
    send(res, 502, { message: 'the L1 or L2 RPC failed: no proof' });
  }
}

export async function startL2ProverServer(
  prover: L2Prover,
  options: {
    host: string;
    port: number;
    onError: (err: unknown) => void;
    /** How long `close()` lets the lookups in flight run before it cuts them; default 5 s. */
    graceMs?: number;
  },
): Promise<L2ProverServer> {
  let closing: Promise<void> | undefined;
  const inFlight = new Set<ServerResponse>();
  // An answer sent while closing ends its connection: kept alive, the socket would hold close() until it timed out.
  const endConnectionOnAnswer = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  const server = createServer((req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closing) endConnectionOnAnswer(res);
    answer(prover, req, res, options.onError).catch((err: unknown) => {
      options.onError(err);
      if (!res.headersSent) send(res, 500, { message: 'internal error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}/`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        for (const res of inFlight) endConnectionOnAnswer(res);
        const cut = setTimeout(() => server.closeAllConnections(), options.graceMs ?? 5000);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
