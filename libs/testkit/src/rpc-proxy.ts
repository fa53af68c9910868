import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One JSON-RPC call the proxy received, with when (Date.now()). */
export interface SeenRpcCall {
  method: string;
  params: unknown[];
  at: number;
}

/**
 * What the proxy does with a call instead of forwarding it: answer `result` in its place (the rest of the request is
 * forwarded), answer the whole HTTP request with a body that is not JSON, drop the connection (a node gone), or
 * never answer the request (a node hanging: the client's timeout decides).
 */
export type RpcFault = { result: unknown } | 'not-json' | 'drop' | 'hang';

export interface RpcProxy {
  /** `http://127.0.0.1:{port}` */
  url: string;
  /** Every call received since the last reset, in order (batches flattened). */
  seen: SeenRpcCall[];
  /** HTTP requests received since the last reset: the round trips a client made. */
  requests(): number;
  /** The methods of `seen`. */
  methods(): string[];
  /** Forgets what was received. */
  reset(): void;
  /** Decides per call; undefined (the default) forwards. */
  setFault(fault: ((call: SeenRpcCall) => RpcFault | undefined) | undefined): void;
  stop(): Promise<void>;
}

interface RpcRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** POSTs `body` to `target` on a connection of its own (no kept-alive socket the node may have closed meanwhile). */
const forward = (target: string, body: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      target,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        readBody(res).then((text) => resolve({ status: res.statusCode ?? 502, body: text }), reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });

/**
 * A JSON-RPC proxy in front of a node (`target`, e.g. anvil) that counts the round trips and calls a client makes
 * (tests and bench/resolver.ts), and answers chosen calls with garbage or drops them: a node misbehaving for real
 * over HTTP, while every other call reaches the real node. Batches are handled call by call.
 */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const seen: SeenRpcCall[] = [];
  let requestCount = 0;
  let decide: ((call: SeenRpcCall) => RpcFault | undefined) | undefined;
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    requestCount += 1;
    const parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
    const requests = Array.isArray(parsed) ? parsed : [parsed];
    const faults = requests.map((r) => {
      const call = {
        method: String(r.method),
        params: Array.isArray(r.params) ? (r.params as unknown[]) : [],
        at: Date.now(),
      };
      seen.push(call);
      return decide?.(call);
    });
    if (faults.includes('drop')) {
      req.socket.destroy();
      return;
    }
    if (faults.includes('hang')) return;
    if (faults.includes('not-json')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>502 Bad Gateway</html>');
      return;
    }
    const upstream = await forward(target, body);
    const answer = JSON.parse(upstream.body) as Record<string, unknown> | Array<Record<string, unknown>>;
    const answers = Array.isArray(answer) ? answer : [answer];
    const replaced = answers.map((a) => {
      const index = requests.findIndex((r) => r.id === a.id);
      const fault = faults[index];
      return typeof fault === 'object' ? { jsonrpc: '2.0', id: a.id, result: fault.result } : a;
    });
    res
      .writeHead(upstream.status, { 'content-type': 'application/json' })
      .end(JSON.stringify(Array.isArray(answer) ? replaced : replaced[0]));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  // Longer than the clients' own idle timeout (Node's agent: 5 s), so a client never sends on a socket closing here.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    requests: () => requestCount,
    methods: () => seen.map((call) => call.method),
    reset() {
      seen.length = 0;
      requestCount = 0;
    },
    setFault(next) {
      decide = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
