import request from 'supertest';
import { z } from 'zod';
import { createTestApp } from '@nrp/testkit';
import { defineRoute } from '../src';

const created = z.object({ id: z.string() });

const createRoute = defineRoute({
  method: 'post',
  path: '/things',
  operationId: 'createThing',
  budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
  summary: 'Create a thing',
  responses: { 201: { description: 'Created', schema: created } },
  handler: (_input, _req, res) => {
    res.status(201);
    return { id: 'thing-1' };
  },
});

// Type-level checks (npm test runs tsc): a handler returns what a success schema accepts, or nothing.
defineRoute({
  method: 'post',
  path: '/wrong',
  operationId: 'wrongBody',
  budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
  summary: 'A body its 201 schema refuses',
  responses: { 201: { description: 'Created', schema: created } },
  // @ts-expect-error `id` must be a string
  handler: () => ({ id: 1 }),
});
defineRoute({
  method: 'delete',
  path: '/things/:id',
  operationId: 'deleteThing',
  budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
  summary: 'A route without a success schema answers on res',
  responses: { 204: { description: 'Deleted' } },
  // @ts-expect-error nothing to answer as JSON
  handler: () => ({ id: 'thing-1' }),
});

describe('a handler typed by its success schemas', () => {
  it('answers what it returns with the success status it set', async () => {
    const app = createTestApp({ routes: [createRoute] });
    const res = await request(app).post('/things').expect(201);
    expect(res.body).toEqual({ id: 'thing-1' });
  });
});
