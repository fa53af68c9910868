import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createTestApp } from '@nrp/testkit';
import { defineRoute, JSON_CONTENT_TYPE, weakEtag } from '../src';

const values: unknown[] = [
  { name: 'alice.eth', texts: [{ key: 'description', value: 'Ünïcödé 🦄 and "quotes"' }] },
  [],
  'a string',
  { big: 'x'.repeat(70_000) },
];

/** What plain Express answers for `value`: the oracle of the kit's JSON answers. */
function expressApp(value: unknown): express.Express {
  const app = express();
  app.get('/value', (_req, res) => {
    res.json(value);
  });
  return app;
}

function kitApp(value: unknown, contentType?: string): express.Express {
  return createTestApp({
    routes: [
      defineRoute({
        method: 'get',
        path: '/value',
        operationId: 'getValue',
        budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
        summary: 'A value',
        responses: { 200: { description: 'The value', schema: z.unknown() } },
        handler: (_input, _req, res) => {
          if (contentType) res.setHeader('Content-Type', contentType);
          return value;
        },
      }),
    ],
  });
}

describe('JSON answers of the kit', () => {
  it.each(values.map((value) => [JSON.stringify(value).slice(0, 40), value]))(
    'are what Express answers, byte for byte, with the same ETag: %s',
    async (_label, value) => {
      const expected = await request(expressApp(value)).get('/value').expect(200);
      const res = await request(kitApp(value)).get('/value').expect(200);
      expect(res.text).toBe(expected.text);
      expect(res.headers['content-type']).toBe(expected.headers['content-type']);
      expect(res.headers['content-type']).toBe(JSON_CONTENT_TYPE);
      expect(res.headers['content-length']).toBe(expected.headers['content-length']);
      expect(res.headers.etag).toBe(expected.headers.etag);
      expect(res.headers.etag).toBe(weakEtag(expected.text));
    },
  );

  it('answer 304 to a matching If-None-Match and no body to HEAD', async () => {
    const app = kitApp(values[0]);
    const { headers } = await request(app).get('/value').expect(200);
    const notModified = await request(app)
      .get('/value')
      .set('If-None-Match', String(headers.etag))
      .expect(304);
    expect(notModified.text).toBe('');
    const head = await request(app).head('/value').expect(200);
    expect(head.text).toBeUndefined();
    expect(head.headers.etag).toBe(headers.etag);
    expect(head.headers['content-length']).toBe(headers['content-length']);
  });

  it('keep a content type the route set', async () => {
    const res = await request(kitApp({ a: 1 }, 'application/ld+json'))
      .get('/value')
      .expect(200);
    expect(res.headers['content-type']).toBe('application/ld+json');
    expect(JSON.parse(res.text as string)).toEqual({ a: 1 });
  });
});

describe('weakEtag', () => {
  it('is the same for a string and its UTF-8 bytes, and differs with the content', () => {
    const text = JSON.stringify(values[0]);
    expect(weakEtag(Buffer.from(text, 'utf8'))).toBe(weakEtag(text));
    expect(weakEtag(text)).not.toBe(weakEtag(`${text} `));
    expect(weakEtag('')).toBe('W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
  });
});
