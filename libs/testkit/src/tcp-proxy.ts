import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A loopback TCP proxy (see `startTcpProxy`). */
export interface TcpProxy {
  port: number;
  /** Destroys every open connection, both sides: a peer gone in the middle of a request. */
  dropConnections(): void;
  stop(): Promise<void>;
}

/**
 * Forwards connections on a free port of 127.0.0.1 to `targetPort`, bytes unchanged. `watch` sees each chunk a
 * client sends once it has been forwarded, to time a fault to a request (e.g. stop a server during an upload).
 * A target that refuses the connection drops the client's.
 */
export async function startTcpProxy(targetPort: number, watch?: (chunk: Buffer) => void): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      watch?.(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropConnections = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    dropConnections,
    stop: async () => {
      dropConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
