import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { outboundRequest } from '../src/outbound-request';

/**
 * A server that answers the first request of each connection and resets the connection when a second request comes
 * on it: what a client meets when it reuses a kept-alive socket the server has just closed.
 */
async function resettingServer(): Promise<{ server: Server; url: string; connections: () => number }> {
  const served = new WeakMap<Socket, number>();
  let connections = 0;
  const server = createServer((req, res) => {
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    if (count > 1) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive' }).end('ok');
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}/`, connections: () => connections };
}

describe('outboundRequest on a kept-alive socket the server reset', () => {
  const get = (url: string, method?: 'GET' | 'POST') =>
    outboundRequest(url, {
      method,
      policy: { allowedOrigins: [new URL(url).origin] },
      signal: AbortSignal.timeout(5000),
      maxBytes: 1024,
    });

  it('sends a GET again on a new socket, once', async () => {
    const { server, url, connections } = await resettingServer();
    try {
      expect((await get(url)).body.toString()).toBe('ok');
      // The second GET reuses the first socket, which the server resets: it is answered on a new one.
      expect((await get(url)).body.toString()).toBe('ok');
      expect(connections()).toBe(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('never sends a POST twice: the reset is a failure', async () => {
    const { server, url } = await resettingServer();
    try {
      expect((await get(url, 'POST')).body.toString()).toBe('ok');
      await expect(get(url, 'POST')).rejects.toThrow('no answer');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
