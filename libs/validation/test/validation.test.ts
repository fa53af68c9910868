import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import {
  commaList,
  commonProblems,
  defineProblems,
  ensName,
  ethAddress,
  lowerCaseAddress,
  MAX_INPUT_DEPTH,
  notFoundHandler,
  parsePart,
  ProblemError,
  problemErrorHandler,
  queryBoolean,
  toProblem,
  parseRequest,
} from '../src';

const silent = { error: () => undefined };

function app(schemas: Parameters<typeof parseRequest>[0]) {
  const server = express();
  server.set('query parser', 'simple');
  server.use(express.json());
  server.post('/x/:name', (req, res) => {
    res.json(parseRequest(schemas, req));
  });
  server.use(notFoundHandler);
  server.use(problemErrorHandler(silent));
  return server;
}

describe('schemas', () => {
  it('ensName normalises (ENSIP-15) and enforces its length limits', () => {
    const schema = ensName({ min: 6, max: 20 });
    expect(schema.parse('Demo.ETH')).toBe('demo.eth');
    expect(schema.safeParse('a.eth').success).toBe(false);
    const bad = schema.safeParse('bad..eth');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/empty label/i);
  });

  it('ethAddress accepts any case and answers EIP-55; rejects bad checksums and lengths', () => {
    expect(ethAddress.parse('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    expect(ethAddress.safeParse('0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266').success).toBe(false);
    expect(ethAddress.safeParse('0x1234').success).toBe(false);
  });

  it('ethAddress wants the 0x prefix and hex digits (no bare hex, no ICAP)', () => {
    expect(ethAddress.safeParse('f39fd6e51aad88f6f4ce6ab8827279cfffb92266').success).toBe(false);
    expect(ethAddress.safeParse('XE7338O073KYGTWWZN0F2WZ0R8PX5ZPPZS').success).toBe(false);
    expect(ethAddress.parse('0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
  });

  it('lowerCaseAddress accepts what ethAddress accepts and answers lower case', () => {
    const lower = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    expect(lowerCaseAddress.parse('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(lower);
    expect(lowerCaseAddress.parse('0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(lower);
    expect(lowerCaseAddress.parse(lower)).toBe(lower);
    expect(lowerCaseAddress.safeParse('0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266').success).toBe(false);
    expect(lowerCaseAddress.safeParse('0x1234').success).toBe(false);
    expect(lowerCaseAddress.safeParse('f39fd6e51aad88f6f4ce6ab8827279cfffb92266').success).toBe(false);
  });

  it('queryBoolean takes true/false/1/0 only', () => {
    expect(queryBoolean.parse('true')).toBe(true);
    expect(queryBoolean.parse('0')).toBe(false);
    expect(queryBoolean.safeParse('yes').success).toBe(false);
  });

  it('commaList trims, drops empties and duplicates, validates items and bounds the count', () => {
    const list = commaList(z.string().regex(/^[a-z]+$/), { max: 3 });
    expect(list.parse(' a, b,,a ')).toEqual(['a', 'b']);
    expect(list.safeParse('a,b,c,d').success).toBe(false);
    expect(list.safeParse(',,').success).toBe(false);
    const bad = list.safeParse('a,B');
    expect(bad.error?.issues[0]?.path).toEqual([1]);
  });
});

describe('parseRequest', () => {
  const server = app({
    params: z.object({ name: ensName() }),
    query: z.object({ fresh: queryBoolean.optional() }),
    body: z.object({ size: z.number().int() }),
  });

  it('leaves the parsed input for the handler', async () => {
    const res = await request(server).post('/x/DEMO.eth?fresh=1').send({ size: 2 }).expect(200);
    expect(res.body).toEqual({ params: { name: 'demo.eth' }, query: { fresh: true }, body: { size: 2 } });
  });

  it('lists one error per bad field across path, query and body', async () => {
    const res = await request(server).post('/x/demo.eth?fresh=maybe').send({ size: 'big' }).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.fresh', 'body.size']);
  });

  it('INVALID_NAME only when every failure is a name failure', async () => {
    const nameOnly = await request(server).post('/x/bad..eth').send({ size: 1 }).expect(400);
    expect(nameOnly.body.code).toBe('INVALID_NAME');
    const mixed = await request(server).post('/x/bad..eth?fresh=maybe').send({ size: 1 }).expect(400);
    expect(mixed.body.code).toBe('INVALID_INPUT');
    expect(mixed.body.errors.map((e: { path: string }) => e.path)).toEqual(['params.name', 'query.fresh']);
  });

  it('refuses U+0000 anywhere (PostgreSQL cannot store it), even where the schema takes anything', async () => {
    const open = app({ body: z.object({ data: z.record(z.string(), z.unknown()) }) });
    const value = await request(open)
      .post('/x/demo.eth')
      .send({ data: { note: ['fine', 'a\u0000b'] } })
      .expect(400);
    expect(value.body.errors).toEqual([
      { path: 'body.data.note.1', message: 'must not contain U+0000 (NUL)' },
    ]);
    const key = await request(open)
      .post('/x/demo.eth')
      .send({ data: { 'k\u0000': 1 } })
      .expect(400);
    expect(key.body.errors[0]).toEqual({
      path: 'body.data',
      message: 'must not have a key containing U+0000 (NUL)',
    });
    const param = await request(server).post('/x/de%00mo.eth?fresh=maybe').send({ size: 1 }).expect(400);
    expect(param.body.code).toBe('INVALID_INPUT');
    expect(param.body.errors.map((e: { path: string }) => e.path)).toEqual(['params.name', 'query.fresh']);
  });

  it(`refuses values nested deeper than ${MAX_INPUT_DEPTH} levels, and takes ${MAX_INPUT_DEPTH}`, async () => {
    const open = app({ body: z.object({ data: z.unknown() }) });
    const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : [nested(depth - 1)]);
    // body → data is 1 level, so data may hold MAX_INPUT_DEPTH - 1 more.
    await request(open)
      .post('/x/demo.eth')
      .send({ data: nested(MAX_INPUT_DEPTH - 1) })
      .expect(200);
    const deep = await request(open)
      .post('/x/demo.eth')
      .set('content-type', 'application/json')
      .send(`{"data":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)
      .expect(400);
    expect(deep.body.errors[0].message).toBe(`must not be nested deeper than ${MAX_INPUT_DEPTH} levels`);
  });

  it('parsePart throws the 400 problem for one part', () => {
    expect(() => parsePart('query', z.object({ n: z.string() }), {})).toThrow(ProblemError);
    try {
      parsePart('query', z.object({ n: z.string() }), {});
    } catch (err) {
      expect((err as ProblemError).toBody()).toMatchObject({ status: 400, errors: [{ path: 'query.n' }] });
    }
  });
});

describe('problems', () => {
  const problems = defineProblems({ THING_GONE: { status: 410, title: 'Gone', hint: 'It expired.' } });

  it('a ProblemError renders RFC 9457 members, its extensions and its headers', async () => {
    const server = express();
    server.get('/', () => {
      throw new ProblemError(problems.THING_GONE, 'thing.eth expired', {
        extensions: { expiredAt: 1 },
        headers: { 'Retry-After': '5' },
      });
    });
    server.use(problemErrorHandler(silent));
    const res = await request(server).get('/').expect(410);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({
      type: '/docs/errors#THING_GONE',
      title: 'Gone',
      status: 410,
      detail: 'thing.eth expired',
      code: 'THING_GONE',
      expiredAt: 1,
    });
  });

  it('maps body-parser failures and hides unknown errors', () => {
    const parseError = Object.assign(new Error('Unexpected token'), {
      type: 'entity.parse.failed',
      status: 400,
    });
    expect(toProblem(parseError).code).toBe('INVALID_JSON');
    const tooLarge = Object.assign(new Error('too large'), {
      type: 'entity.too.large',
      status: 413,
      limit: 100,
    });
    expect(toProblem(tooLarge)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('100'),
    });
    const internal = toProblem(new Error('password=hunter2'));
    expect(internal.def).toBe(commonProblems.INTERNAL_ERROR);
    expect(JSON.stringify(internal.toBody())).not.toContain('hunter2');
  });

  it('an unknown route is a problem+json 404', async () => {
    const res = await request(app({})).get('/nowhere').expect(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', detail: 'No route for GET /nowhere.' });
  });
});
