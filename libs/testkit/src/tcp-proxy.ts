import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * - `forward`: bytes pass both ways unchanged.
 * - `stall`: the proxy keeps accepting and reading but nothing reaches the target and nothing comes back (a node
 *   that accepts and never answers); a connection opened while forwarding goes silent too.
 * - `hold-responses`: requests reach the target, its answers are kept back (the target did the work; the client
 *   never hears of it, unless `releaseHeld` delivers them late).
 */
export type TcpProxyMode = 'forward' | 'stall' | 'hold-responses';

export interface TcpProxy {
  port: number;
  /** `http://127.0.0.1:{port}` */
  url: string;
  setMode(mode: TcpProxyMode): void;
  /** Destroys every open connection, both sides: a peer gone in the middle of a request. */
  dropConnections(): void;
  /** Delivers the answers held back since the last `setMode('hold-responses')`, in order, then forwards: a slow answer. */
  releaseHeld(): void;
  /** Resolves when the answers held back since the last `setMode('hold-responses')` match `pattern`. */
  waitForHeld(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface TcpProxyTarget {
  host: string;
  port: number;
  /** Sees each chunk a client sends once it is forwarded, to time a fault to a request. */
  watch?: (chunk: Buffer) => void;
}

/**
 * A loopback TCP proxy in front of `target` (`host:port`), for producing network faults for real. Without a target it
 * only stalls.
 */
export async function startTcpProxy(target?: TcpProxyTarget): Promise<TcpProxy> {
  let mode: TcpProxyMode = target ? 'forward' : 'stall';
  let held = '';
  let heldChunks: Array<{ client: Socket; chunk: Buffer }> = [];
  const heldWaiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server: Server = createServer((client) => {
    track(client);
    if (!target) return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.on('data', (chunk: Buffer) => {
      if (mode === 'stall') return;
      upstream.write(chunk);
      target.watch?.(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'forward') {
        client.write(chunk);
      } else if (mode === 'hold-responses') {
        held += chunk.toString('latin1');
        heldChunks.push({ client, chunk });
        for (const wake of heldWaiters) wake();
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dropConnections = (): void => {
    for (const socket of sockets) socket.destroy();
  };

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    setMode(next) {
      if (next === 'hold-responses') {
        held = '';
        heldChunks = [];
      }
      mode = next;
    },
    releaseHeld() {
      mode = 'forward';
      for (const { client, chunk } of heldChunks) client.write(chunk);
      heldChunks = [];
    },
    dropConnections,
    waitForHeld(pattern, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(held)) return;
          clearTimeout(timer);
          heldWaiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          heldWaiters.delete(check);
          reject(new Error(`tcp proxy: no held answer matched ${String(pattern)} within ${timeoutMs} ms`));
        }, timeoutMs);
        heldWaiters.add(check);
        check();
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
