/**
 * Every answer that is not a 2xx with JSON becomes a typed ServiceError, whatever the body: answered by a real
 * HTTP server on a free port (a proxy's HTML 502, an empty 503, JSON that is not a problem, a problem+json 400).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createResolverClient, ServiceError, UNEXPECTED_RESPONSE, type ResolverClient } from '../src/index';

const answers: Record<string, { status: number; type?: string; body: string }> = {
  '/ens/v2/profile/html.eth': {
    status: 502,
    type: 'text/html',
    body: '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>',
  },
  '/ens/v2/profile/empty.eth': { status: 503, body: '' },
  '/ens/v2/profile/array.eth': { status: 500, type: 'application/json', body: '["not", "a", "problem"]' },
  '/ens/v2/profile/problem.eth': {
    status: 400,
    type: 'application/problem+json',
    body: JSON.stringify({
      type: '/docs/errors#INVALID_INPUT',
      title: 'Invalid input',
      status: 400,
      detail: 'One field is invalid.',
      code: 'INVALID_INPUT',
      errors: [{ path: 'query.texts', message: 'too many' }],
    }),
  },
  '/ens/v2/profile/ok-html.eth': { status: 200, type: 'text/html', body: '<html>captive portal</html>' },
};

describe('ServiceError for every kind of failed answer', () => {
  let server: Server;
  let client: ResolverClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const answer = answers[req.url?.split('?')[0] ?? ''] ?? { status: 404, body: '' };
      res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = createResolverClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function failure(name: string): Promise<ServiceError> {
    const err: unknown = await client.getProfile(name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }

  it("a proxy's HTML 502 is a ServiceError with the status, not a SyntaxError", async () => {
    const err = await failure('html.eth');
    expect(err).toMatchObject({ status: 502, code: UNEXPECTED_RESPONSE, errors: [] });
    expect(err.detail).toBe('502 Bad Gateway with text/html: not a problem+json answer');
    expect(err.body).toContain('nginx');
  });

  it('an empty 503 and JSON that is not a problem are ServiceErrors too', async () => {
    expect((await failure('empty.eth')).detail).toBe(
      '503 Service Unavailable with an empty body: not a problem+json answer',
    );
    expect(await failure('array.eth')).toMatchObject({ status: 500, code: UNEXPECTED_RESPONSE });
  });

  it('a problem+json answer keeps its code, detail and field errors', async () => {
    expect(await failure('problem.eth')).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      detail: 'One field is invalid.',
      errors: [{ path: 'query.texts', message: 'too many' }],
      message: '400 INVALID_INPUT: One field is invalid.',
    });
  });

  it('a 200 whose body is not JSON is a ServiceError, not a SyntaxError', async () => {
    expect(await failure('ok-html.eth')).toMatchObject({
      status: 200,
      code: UNEXPECTED_RESPONSE,
      detail: '200 OK with text/html: the body is not JSON',
    });
  });
});
