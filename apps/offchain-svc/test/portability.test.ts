import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  createOffchainClient,
  toCreateSubnameInput,
  type CreateSubnameInput,
  type OffchainClient,
  type OffchainSubname,
} from '@nrp/client';
import { ALICE, BOB, BTC, IPFS, startOffchainService, type OffchainService } from './helpers';

const count = async (svc: OffchainService, table: 'offchain_subnames' | 'offchain_events') =>
  Number(
    (
      await svc.db.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const item = (label: string, extra: Partial<CreateSubnameInput> = {}): CreateSubnameInput => ({
  parentName: 'bulk.eth',
  label,
  ...extra,
});

/** Every record of the export, through HTTP, parsed line by line. */
async function exportLines(
  svc: OffchainService,
  key: string,
  query: Record<string, string>,
): Promise<OffchainSubname[]> {
  const res = await request(svc.app)
    .get('/api/v1/subnames/export')
    .query(query)
    .set('x-auth-token', key)
    .expect(200);
  expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return res.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OffchainSubname);
}

describe('bulk import', () => {
  let svc: OffchainService;
  let key: string;
  beforeAll(async () => {
    svc = await startOffchainService({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' });
    key = await svc.keyFor('bulk.eth', 'second.eth');
    // A subscribed webhook: every written item records an event in the same transaction.
    await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://hooks.example.com/bulk', events: ['subname.created', 'subname.updated'] })
      .expect(201);
  });
  afterAll(() => svc?.close());

  const bulk = (body: unknown, query = '', headers: Record<string, string> = {}) =>
    request(svc.app)
      .post(`/api/v1/subnames/bulk${query}`)
      .set('x-auth-token', key)
      .set(headers)
      .send(body as object);

  it('writes every item in order with one event per item; results name the records without echoing them', async () => {
    const res = await bulk({
      items: [
        item('alpha', { owner: ALICE, texts: [{ key: 'url', value: 'https://alpha' }], ttl: 60 }),
        item('beta', { addresses: [{ coin: 0, value: BTC }], contenthash: IPFS }),
        { parentName: 'second.eth', label: 'gamma' },
      ],
    }).expect(200);
    expect(res.body).toMatchObject({ created: 3, updated: 0, failed: 0 });
    expect(res.body.results.map((r: { index: number; status: number }) => [r.index, r.status])).toEqual([
      [0, 201],
      [1, 201],
      [2, 201],
    ]);
    const stored = await request(svc.app).get('/api/v1/subnames/alpha.bulk.eth').expect(200);
    expect(stored.body).toMatchObject({ owner: ALICE, ttl: 60, texts: { url: 'https://alpha' } });
    expect(res.body.results[0]).toEqual({
      index: 0,
      status: 201,
      id: stored.body.id,
      fullName: 'alpha.bulk.eth',
      updatedAt: stored.body.updatedAt,
    });
    expect(await count(svc, 'offchain_events')).toBe(3);
  });

  it('a name repeated in one request is a 400 naming both indexes, atomic or not, and nothing is written', async () => {
    const subnames = await count(svc, 'offchain_subnames');
    const events = await count(svc, 'offchain_events');
    for (const query of ['', '?atomic=false']) {
      const res = await bulk(
        { items: [item('again'), item('other'), item('AGAIN', { ttl: 1 })] },
        query,
      ).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.errors).toEqual([
        { path: 'body.items.2', message: 'writes again.bulk.eth again, as item 0 does' },
      ]);
    }
    expect(await count(svc, 'offchain_subnames')).toBe(subnames);
    expect(await count(svc, 'offchain_events')).toBe(events);
  });

  it('the answer stays far smaller than a request of big records (finding: 425 KB answered 100 MB)', async () => {
    const texts = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(4000) }));
    const body = {
      items: [
        item('amplified', { texts }),
        ...Array.from({ length: 249 }, (_, i) => item(`amp${i}`, { texts: [{ key: 'k', value: 'v' }] })),
      ],
    };
    const requestBytes = JSON.stringify(body).length;
    const res = await bulk(body, '?atomic=false').expect(200);
    expect(res.body.created).toBe(250);
    expect(res.text.length * 10).toBeLessThan(requestBytes);
  });

  it('atomic: one invalid item is a 400 naming its index, and nothing is written', async () => {
    const subnames = await count(svc, 'offchain_subnames');
    const events = await count(svc, 'offchain_events');
    const res = await bulk({
      items: [item('ok1'), item('ok2'), item('bad.label'), item('ok3', { owner: 'nope', ttl: -1 })],
    }).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'body.items.2.label',
      'body.items.3.owner',
      'body.items.3.ttl',
    ]);
    expect(await count(svc, 'offchain_subnames')).toBe(subnames);
    expect(await count(svc, 'offchain_events')).toBe(events);
  });

  it('atomic: an item under a parent the key may not manage is a 403 naming it, and nothing is written', async () => {
    const subnames = await count(svc, 'offchain_subnames');
    const res = await bulk({ items: [item('fine'), { parentName: 'foreign.eth', label: 'x' }] }).expect(403);
    expect(res.body.code).toBe('PARENT_NOT_ALLOWED');
    expect(res.body.errors).toEqual([{ path: 'body.items.1.parentName', message: expect.any(String) }]);
    expect(await count(svc, 'offchain_subnames')).toBe(subnames);
  });

  it('atomic=false: per-item results; the valid items are written', async () => {
    const res = await bulk(
      {
        items: [
          item('delta'),
          { parentName: 'foreign.eth', label: 'x' },
          item('', { ttl: 1 }),
          item('alpha'),
        ],
      },
      '?atomic=false',
    ).expect(200);
    expect(res.body).toMatchObject({ created: 1, updated: 1, failed: 2 });
    const [delta, foreign, invalid, alpha] = res.body.results;
    expect(delta).toMatchObject({ index: 0, status: 201, fullName: 'delta.bulk.eth' });
    expect(foreign).toMatchObject({ index: 1, status: 403, error: { code: 'PARENT_NOT_ALLOWED' } });
    expect(invalid).toMatchObject({
      index: 2,
      status: 400,
      error: { code: expect.stringMatching(/^INVALID_/) },
    });
    expect(invalid.error.errors[0].path).toBe('body.items.2.label');
    expect(alpha).toMatchObject({ index: 3, status: 200 });
    await request(svc.app).get('/api/v1/subnames/delta.bulk.eth').expect(200);
  });

  it('refuses more than 1,000 items, no items, a bad body or atomic value, and a missing key', async () => {
    const tooMany = await bulk({ items: Array.from({ length: 1001 }, (_, i) => item(`n${i}`)) }).expect(400);
    expect(tooMany.body.errors).toEqual([{ path: 'body.items', message: expect.stringMatching(/1000/) }]);
    expect((await bulk({ items: [] }).expect(400)).body.errors[0].path).toBe('body.items');
    expect((await bulk([item('x')]).expect(400)).body.code).toBe('INVALID_INPUT');
    const atomic = await bulk({ items: [item('x')] }, '?atomic=maybe').expect(400);
    expect(atomic.body.errors[0].path).toBe('query.atomic');
    await request(svc.app)
      .post('/api/v1/subnames/bulk')
      .send({ items: [item('x')] })
      .expect(401);
    await request(svc.app)
      .post('/api/v1/subnames/bulk')
      .set('x-auth-token', 'offchain_unknown')
      .send({ items: [item('x')] })
      .expect(401);
    await request(svc.app).get('/api/v1/subnames/x.bulk.eth').expect(404);
  });

  it('Idempotency-Key: a retry answers the first result without writing again; another body is a 409', async () => {
    const body = { items: [item('idem', { texts: [{ key: 'k', value: 'v1' }] })] };
    const first = await bulk(body, '', { 'idempotency-key': 'import-1' }).expect(200);
    expect(first.body.created).toBe(1);
    const events = await count(svc, 'offchain_events');
    const replay = await bulk(body, '', { 'idempotency-key': 'import-1' }).expect(200);
    expect(replay.body).toEqual(first.body);
    expect(await count(svc, 'offchain_events')).toBe(events);
    const stored = await request(svc.app).get('/api/v1/subnames/idem.bulk.eth').expect(200);
    expect(stored.body.updatedAt).toBe(first.body.results[0].updatedAt);

    const changed = await bulk({ items: [item('idem', { texts: [{ key: 'k', value: 'v2' }] })] }, '', {
      'idempotency-key': 'import-1',
    }).expect(409);
    expect(changed.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await bulk(body, '?atomic=false', { 'idempotency-key': 'import-1' }).expect(409);
    expect((await request(svc.app).get('/api/v1/subnames/idem.bulk.eth')).body.texts).toEqual({ k: 'v1' });
    // A failed request is not remembered: the key stays free for a correct retry.
    await bulk({ items: [item('bad.one')] }, '', { 'idempotency-key': 'import-2' }).expect(400);
    await bulk({ items: [item('goodone')] }, '', { 'idempotency-key': 'import-2' }).expect(200);
    // Keys belong to the API key that used them.
    const otherKey = await svc.keyFor('bulk.eth');
    const other = await request(svc.app)
      .post('/api/v1/subnames/bulk')
      .set('x-auth-token', otherKey)
      .set('idempotency-key', 'import-1')
      .send({ items: [item('idem', { texts: [{ key: 'k', value: 'v3' }] })] })
      .expect(200);
    expect(other.body.updated).toBe(1);
    const long = await bulk(body, '', { 'idempotency-key': 'k'.repeat(256) }).expect(400);
    expect(long.body.errors[0].path).toBe('headers.idempotency-key');
  });

  it('concurrent imports of the same new names lose no field', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `both${i}`);
    const [a, b] = await Promise.all([
      bulk({ items: names.map((label) => item(label, { texts: [{ key: 'from', value: 'a' }] })) }),
      bulk({ items: names.map((label) => item(label, { owner: BOB })) }),
    ]);
    expect([a?.status, b?.status]).toEqual([200, 200]);
    expect((a?.body.created ?? 0) + (b?.body.created ?? 0)).toBe(50);
    for (const label of names) {
      const stored = await request(svc.app).get(`/api/v1/subnames/${label}.bulk.eth`).expect(200);
      expect(stored.body).toMatchObject({ owner: BOB, texts: { from: 'a' } });
    }
  });

  it('concurrent retries with one Idempotency-Key write once and answer alike', async () => {
    const body = { items: [item('race1'), item('race2')] };
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => bulk(body, '', { 'idempotency-key': 'race' })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.body).toEqual(answers[0]?.body);
    expect(answers[0]?.body.created).toBe(2);
  });
});

describe('export', () => {
  let svc: OffchainService;
  let key: string;
  beforeAll(async () => {
    svc = await startOffchainService({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' });
    key = await svc.keyFor('export.eth');
    // 2,500 subnames: the export spans three pages.
    for (let start = 0; start < 2500; start += 1000) {
      const items = Array.from({ length: Math.min(1000, 2500 - start) }, (_, i) => ({
        parentName: 'export.eth',
        label: `n${String(start + i).padStart(5, '0')}`,
        owner: (start + i) % 2 ? ALICE : BOB,
        metadata: [{ key: 'batch', value: String(start) }],
      }));
      await request(svc.app)
        .post('/api/v1/subnames/bulk')
        .set('x-auth-token', key)
        .send({ items })
        .expect(200);
    }
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', await svc.keyFor('elsewhere.eth'))
      .send({ parentName: 'elsewhere.eth', label: 'n00000' })
      .expect(201);
  });
  afterAll(() => svc?.close());

  it('streams every subname of the parent in label order, in the record shape', async () => {
    const lines = await exportLines(svc, key, { parentName: 'Export.eth' });
    expect(lines).toHaveLength(2500);
    expect(lines.map((l) => l.label)).toEqual([...lines.map((l) => l.label)].sort());
    expect(new Set(lines.map((l) => l.parentName))).toEqual(new Set(['export.eth']));
    const one = await request(svc.app).get('/api/v1/subnames/n01234.export.eth').expect(200);
    expect(lines[1234]).toEqual(one.body);
  });

  it('resumes after the label given as cursor', async () => {
    const rest = await exportLines(svc, key, { parentName: 'export.eth', cursor: 'n01999' });
    expect(rest.map((l) => l.label)).toEqual(
      Array.from({ length: 500 }, (_, i) => `n${String(2000 + i).padStart(5, '0')}`),
    );
    expect(await exportLines(svc, key, { parentName: 'export.eth', cursor: 'n02499' })).toEqual([]);
  });

  it('403 for a parent the key may not manage, 401 without a key, 400 without a parent', async () => {
    const res = await request(svc.app)
      .get('/api/v1/subnames/export?parentName=elsewhere.eth')
      .set('x-auth-token', key)
      .expect(403);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('PARENT_NOT_ALLOWED');
    await request(svc.app).get('/api/v1/subnames/export?parentName=export.eth').expect(401);
    const missing = await request(svc.app)
      .get('/api/v1/subnames/export')
      .set('x-auth-token', key)
      .expect(400);
    expect(missing.body.errors[0].path).toBe('query.parentName');
    const badName = await request(svc.app)
      .get('/api/v1/subnames/export?parentName=a..b')
      .set('x-auth-token', key)
      .expect(400);
    expect(badName.body.code).toBe('INVALID_NAME');
  });
});

describe('records of maximal size: search and export pages are bounded in bytes', () => {
  let svc: OffchainService;
  let key: string;
  const labels = Array.from({ length: 12 }, (_, i) => `big${String(i).padStart(2, '0')}`);
  beforeAll(async () => {
    svc = await startOffchainService({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' });
    key = await svc.keyFor('big.eth');
    // 12 records of 400 KB of texts: 4.8 MB together, more than one answer may carry.
    const texts = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: 'x'.repeat(4000) }));
    for (const label of labels) {
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'big.eth', label, texts })
        .expect(201);
    }
  });
  afterAll(() => svc?.close());

  it('a search page ends early under 4 MB with a cursor that continues it (finding: 40 bytes answered 41 MB)', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await request(svc.app)
        .post('/api/v1/subnames/search')
        .send({ parentName: 'big.eth', size: 100, ...(cursor ? { cursor } : {}) })
        .expect(200);
      expect(res.text.length).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect(res.body.totalItems).toBe(12);
      expect(res.body.items.length).toBeGreaterThan(0);
      seen.push(...res.body.items.map((s: OffchainSubname) => s.label));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(labels);
  });

  it('refuses a cursor it did not give, and a cursor with a page', async () => {
    const bad = await request(svc.app)
      .post('/api/v1/subnames/search')
      .send({ parentName: 'big.eth', cursor: 'not-a-cursor' })
      .expect(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(bad.body.errors).toEqual([{ path: 'body.cursor', message: expect.any(String) }]);
    const first = await request(svc.app)
      .post('/api/v1/subnames/search')
      .send({ parentName: 'big.eth', size: 1 })
      .expect(200);
    const both = await request(svc.app)
      .post('/api/v1/subnames/search')
      .send({ parentName: 'big.eth', page: 2, cursor: first.body.nextCursor })
      .expect(400);
    expect(both.body.errors[0].path).toBe('body.page');
  });

  it('the export streams every big record, in order, identical to its GET', async () => {
    const lines = await exportLines(svc, key, { parentName: 'big.eth' });
    expect(lines.map((l) => l.label)).toEqual(labels);
    const one = await request(svc.app).get('/api/v1/subnames/big07.big.eth').expect(200);
    expect(lines[7]).toEqual(one.body);
  });

  it('the export writes texts escaped by the database exactly as their GET reads them', async () => {
    const escapesKey = await svc.keyFor('escapes.eth');
    const texts = [
      { key: 'quote"back\\slash', value: 'line\nbreak\ttab \u0001\u001f \u007f' },
      { key: '10', value: 'an integer-like key' },
      { key: 'emoji', value: '🦊 é 中文 \u2028' },
      { key: 'empty', value: '' },
      ...Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: `${i}`.repeat(i * 500) })),
    ];
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', escapesKey)
      .send({ parentName: 'escapes.eth', label: 'odd', texts })
      .expect(201);
    const [line] = await exportLines(svc, escapesKey, { parentName: 'escapes.eth' });
    const one = await request(svc.app).get('/api/v1/subnames/odd.escapes.eth').expect(200);
    expect(line).toEqual(one.body);
    expect(Object.keys(line?.texts ?? {})).toHaveLength(texts.length);
  });
});

describe('export → bulk import into an empty database → export (typed client)', () => {
  const servers: Array<{ svc: OffchainService; server: Server; client: OffchainClient; key: string }> = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const svc = await startOffchainService({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' });
      const server = svc.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const client = createOffchainClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      servers.push({ svc, server, client, key: await svc.keyFor('move.eth') });
    }
  });
  afterAll(async () => {
    for (const { svc, server } of servers) {
      await new Promise((resolve) => server.close(resolve));
      await svc.close();
    }
  });

  it('gives back identical records (ids and timestamps are the new service’s)', async () => {
    const [source, target] = servers;
    if (!source || !target) throw new Error('two services expected');
    const items: CreateSubnameInput[] = Array.from({ length: 1200 }, (_, i) => ({
      parentName: 'move.eth',
      label: i === 0 ? 'ünïcode' : `name${i}`,
      owner: i % 3 ? ALICE : null,
      texts:
        i % 2
          ? [
              { key: 'url', value: `https://${i}.example` },
              { key: 'description', value: 'x'.repeat(i % 50) },
            ]
          : [],
      addresses:
        i % 4
          ? [
              { coin: 60, value: BOB },
              { coin: 0, value: BTC },
            ]
          : undefined,
      metadata: [{ key: 'i', value: String(i) }],
      contenthash: i % 5 ? IPFS : undefined,
      ttl: i % 7 ? i : null,
    }));
    for (let start = 0; start < items.length; start += 1000) {
      await source.client.bulkImportSubnames(items.slice(start, start + 1000), source.key);
    }
    const exported: OffchainSubname[] = [];
    for await (const record of source.client.exportSubnames('move.eth', source.key)) exported.push(record);
    expect(exported).toHaveLength(1200);

    const inputs = exported.map(toCreateSubnameInput);
    for (let start = 0; start < inputs.length; start += 1000) {
      const result = await target.client.bulkImportSubnames(inputs.slice(start, start + 1000), target.key, {
        idempotencyKey: `move-${start}`,
      });
      expect(result.failed).toBe(0);
    }
    const reimported: OffchainSubname[] = [];
    for await (const record of target.client.exportSubnames('move.eth', target.key)) reimported.push(record);
    const content = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }: OffchainSubname) => rest;
    expect(reimported.map(content)).toEqual(exported.map(content));

    // Resuming through the client after the 1,000th record.
    const resumed: OffchainSubname[] = [];
    for await (const record of target.client.exportSubnames('move.eth', target.key, {
      cursor: reimported[999]?.label,
    })) {
      resumed.push(record);
    }
    expect(resumed).toEqual(reimported.slice(1000));
    await expect(
      (async () => {
        for await (const record of target.client.exportSubnames('other.eth', target.key)) void record;
      })(),
    ).rejects.toMatchObject({ status: 403, code: 'PARENT_NOT_ALLOWED' });
  });

  it('webhooks through the typed client', async () => {
    const [source] = servers;
    if (!source) throw new Error('a service expected');
    const { client, key } = source;
    const created = await client.createWebhook(
      { url: 'https://hooks.example.com/c', events: ['subname.deleted'] },
      key,
    );
    expect(created.secret).toMatch(/^whsec_/);
    expect(await client.listWebhooks(key)).toEqual([
      { id: created.id, url: created.url, events: created.events, createdAt: created.createdAt },
    ]);
    await client.createOrUpdateSubname({ parentName: 'move.eth', label: 'gone' }, key);
    await client.deleteSubname('gone.move.eth', key);
    const { items, nextCursor } = await client.listWebhookDeliveries(created.id, key, { status: 'pending' });
    expect(nextCursor).toBeNull();
    expect(items).toEqual([
      expect.objectContaining({ eventType: 'subname.deleted', status: 'pending', attempts: 0 }),
    ]);
    const again = await client.redeliverWebhookDelivery(created.id, items[0]?.id ?? '', key);
    expect(again).toMatchObject({ id: items[0]?.id, status: 'pending' });
    await client.deleteWebhook(created.id, key);
    await expect(client.deleteWebhook(created.id, key)).rejects.toMatchObject({ status: 404 });
    await expect(
      client.createWebhook({ url: 'http://hooks.example.com/c', events: ['subname.deleted'] }, key),
    ).rejects.toMatchObject({ status: 400, code: 'INVALID_WEBHOOK_URL' });
  });
});
