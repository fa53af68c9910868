import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  origin: string;
  received: ReceivedDelivery[];
  /** Requests answered so far (after the receiver's delay). */
  answered: number;
  /** How the next request is answered (status code), given how many arrived before it. */
  respond: (before: number) => number;
  /** While set, answers wait for it (after the delay): attempts stay in flight until the test lets them go. */
  held?: Promise<void>;
  close(): Promise<void>;
}

/** A webhook receiver: a real HTTP server on 127.0.0.1 that records every request and answers as the test says. */
export async function startWebhookReceiver(delayMs = 0): Promise<WebhookReceiver> {
  const receiver: Omit<WebhookReceiver, 'url' | 'origin' | 'close'> = {
    received: [],
    answered: 0,
    respond: () => 204,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = receiver.respond(receiver.received.length);
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      setTimeout(() => {
        void (receiver.held ?? Promise.resolve()).then(() => {
          res.statusCode = status;
          receiver.answered += 1;
          res.end();
        });
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(receiver, {
    url: `${origin}/hooks/nrp`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
