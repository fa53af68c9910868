import { z } from 'zod';
import { defineRoute, type RouteDefinition, type RunningService } from '@nrp/server';
import { createTestApp, hostileInputFindings, listenForTests } from '../src';

/** The generator against routes with known faults: each must be found, and the sound route must pass. */
describe('hostileInputFindings', () => {
  let running: RunningService;
  const stored: string[] = [];
  let validCalls = 0;

  const routes: RouteDefinition[] = [
    defineRoute({
      method: 'put',
      path: '/sound/:id',
      operationId: 'sound',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'validates, then stores',
      params: z.object({ id: z.string().regex(/^[a-z]{1,8}$/) }),
      body: z.strictObject({
        amount: z.string().regex(/^\d{1,10}$/),
        note: z.string().max(20).optional(),
        // A record takes any key: a member added here is no unknown field.
        tags: z.record(z.string(), z.string().max(20)).optional(),
      }),
      responses: { 200: { description: 'stored', schema: z.object({ ok: z.boolean() }) } },
      handler: ({ params, body }) => {
        validCalls++;
        stored.push(`${params.id}=${body.amount}`);
        return { ok: true };
      },
    }),
    // The weiString fault: a refinement that throws on what the regex already refused.
    defineRoute({
      method: 'post',
      path: '/throws',
      operationId: 'throws',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'throws on non-digits',
      body: z.strictObject({
        amount: z
          .string()
          .regex(/^\d+$/)
          .refine((v) => BigInt(v) >= 0n),
      }),
      responses: { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } },
      handler: () => ({ ok: true }),
    }),
    defineRoute({
      method: 'post',
      path: '/writes-then-refuses',
      operationId: 'writesThenRefuses',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'stores before it checks',
      body: z.strictObject({ label: z.string() }),
      responses: { 200: { description: 'ok' } },
      handler: ({ body }, _req, res) => {
        stored.push(body.label);
        if (body.label.length > 3)
          res
            .status(409)
            .type('application/problem+json')
            .send(
              JSON.stringify({
                type: '/docs/errors#TAKEN',
                title: 'Taken',
                status: 409,
                detail: 'taken',
                code: 'TAKEN',
              }),
            );
        else res.json({ ok: true });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/hangs-up',
      operationId: 'hangsUp',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'closes the connection on a long note',
      body: z.strictObject({ note: z.string() }),
      responses: { 200: { description: 'ok' } },
      handler: ({ body }, req, res) => {
        if (body.note.length > 10) req.socket.destroy();
        else res.json({ ok: true });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/plain-error',
      operationId: 'plainError',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'answers an error as text',
      query: z.object({ q: z.string().optional() }),
      responses: { 200: { description: 'ok' } },
      handler: ({ query }, _req, res) => {
        if (query.q !== undefined && query.q.length > 5) res.status(404).type('text/plain').send('nope');
        else res.json({ ok: true });
      },
    }),
    // Unknown members dropped silently: at the top, and inside a strict body.
    defineRoute({
      method: 'post',
      path: '/loose',
      operationId: 'loose',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'drops unknown members',
      body: z.object({ label: z.string() }),
      responses: { 200: { description: 'ok' } },
      handler: (_input, _req, res) => {
        res.json({ ok: true });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/loose-inside',
      operationId: 'looseInside',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'drops unknown members of an item',
      body: z.strictObject({ items: z.array(z.object({ label: z.string() })).min(1) }),
      responses: { 200: { description: 'ok' } },
      handler: (_input, _req, res) => {
        res.json({ ok: true });
      },
    }),
  ];

  beforeAll(async () => {
    running = await listenForTests(createTestApp({ routes }));
  });
  afterAll(() => running.shutdown());

  it('finds the 500, the write on a 4xx, the error that is not problem+json, the hang-up and unknown members accepted; nothing on the sound route', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes,
      fingerprint: async () => stored.join('\n'),
      runsPerRoute: 60,
      seed: 42,
    });
    expect(Object.fromEntries(findings.map((f) => [f.operationId, f.problem]))).toEqual({
      throws: expect.stringMatching(/^answered 500/),
      writesThenRefuses: expect.stringMatching(/^a 409 \(TAKEN\) changed the stored state/),
      plainError: 'error with content type "text/plain; charset=utf-8"',
      hangsUp: expect.stringMatching(/^no answer: socket hang up/),
      loose: 'accepted the unknown field body.extra',
      looseInside: 'accepted the unknown field body.items.0.extra',
    });
    // Generation reaches the handler with valid requests, not only refusals.
    expect(validCalls).toBeGreaterThan(0);
  });
});
