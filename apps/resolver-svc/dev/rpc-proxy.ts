/**
 * A loopback HTTP proxy in front of an RPC node that counts the HTTP round trips (and the JSON-RPC methods in
 * them) the service makes. Used by the tests and by bench/resolver.ts; it forwards bytes unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcProxy {
  url: string;
  /** HTTP requests received since the last reset. */
  requests(): number;
  /** JSON-RPC methods received since the last reset (a batch counts each of its calls). */
  methods(): string[];
  reset(): void;
  stop(): Promise<void>;
}

function methodsOf(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.map((c: unknown) =>
      typeof c === 'object' && c !== null && 'method' in c ? String(c.method) : '?',
    );
  } catch {
    return ['?'];
  }
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let requests = 0;
  let methods: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests++;
      methods.push(...methodsOf(body));
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(await upstream.text());
        })
        .catch(() => {
          res.writeHead(502).end();
        });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    methods: () => [...methods],
    reset: () => {
      requests = 0;
      methods = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
