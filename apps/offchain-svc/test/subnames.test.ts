import net from 'node:net';
import { sql } from 'kysely';
import request from 'supertest';
import { namehash } from '@nrp/ens';
import { expectProblem, listenForTests } from '@nrp/testkit';
import { ALICE, BOB, BTC, IPFS, startOffchainService, type OffchainService } from './helpers';
import { revokeApiKey } from '../src/data/api-keys';
import { issueApiKey } from '../src/keys/api-keys';

describe('offchain subnames API', () => {
  let svc: OffchainService;
  let demoKey: string;
  let otherKey: string;

  beforeAll(async () => {
    svc = await startOffchainService();
    demoKey = await svc.keyFor('demo.eth');
    otherKey = await svc.keyFor('other.eth');
  });
  afterAll(() => svc.close());

  const rowCount = async () =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from offchain_subnames`.execute(svc.db.db)).rows[0]?.n ??
        -1,
    );
  /** `null`: no key at all. */
  const post = (body: unknown, key: string | null = demoKey) => {
    const req = request(svc.app).post('/api/v1/subnames');
    return key === null ? req.send(body as object) : req.set('x-auth-token', key).send(body as object);
  };
  describe('POST /api/v1/subnames', () => {
    it('creates a subname with every field (201), normalising names and addresses', async () => {
      const res = await post({
        parentName: 'Demo.ETH',
        label: 'Alice',
        owner: ALICE.toLowerCase(),
        texts: [
          { key: 'avatar', value: 'https://example.com/a.png' },
          { key: 'description', value: 'Alice' },
        ],
        addresses: [
          { coin: 60, value: ALICE.toLowerCase() },
          { coin: 0, value: BTC },
        ],
        metadata: [{ key: 'tier', value: 'gold' }],
        contenthash: IPFS,
        ttl: 300,
      }).expect(201);
      expect(res.body).toMatchObject({
        fullName: 'alice.demo.eth',
        parentName: 'demo.eth',
        label: 'alice',
        owner: ALICE,
        texts: { avatar: 'https://example.com/a.png', description: 'Alice' },
        addresses: { '60': ALICE, '0': BTC },
        metadata: { tier: 'gold' },
        contenthash: IPFS,
        ttl: 300,
        namehash: namehash('alice.demo.eth'),
      });
      expect(typeof res.body.id).toBe('string');
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    });

    it('updates (200): present lists replace, absent fields are kept, null clears', async () => {
      const before = (await request(svc.app).get('/api/v1/subnames/alice.demo.eth').expect(200)).body;
      const res = await post({
        parentName: 'demo.eth',
        label: 'alice',
        texts: [{ key: 'url', value: 'https://alice.example' }],
        contenthash: null,
      }).expect(200);
      expect(res.body).toMatchObject({
        id: before.id,
        texts: { url: 'https://alice.example' },
        addresses: before.addresses,
        metadata: before.metadata,
        owner: ALICE,
        ttl: 300,
        contenthash: null,
        createdAt: before.createdAt,
      });
      expect(res.body.updatedAt >= before.updatedAt).toBe(true);
      expect(await rowCount()).toBe(1);
    });

    it('answers 401 UNAUTHORIZED without a key, with an unknown key and with a revoked key, writing nothing', async () => {
      const body = { parentName: 'demo.eth', label: 'nokey' };
      expectProblem(await post(body, null), 401, 'UNAUTHORIZED');
      expectProblem(await post(body, 'offchain_not-a-real-key'), 401, 'UNAUTHORIZED');
      const { key, row } = await issueApiKey(svc.db, ['demo.eth']);
      await post({ parentName: 'demo.eth', label: 'revoked-later' }, key).expect(201);
      expect(await revokeApiKey(svc.db.db, row.id)).toBe(true);
      expectProblem(await post(body, key), 401, 'UNAUTHORIZED');
      await request(svc.app).get('/api/v1/subnames/nokey.demo.eth').expect(404);
      await request(svc.app)
        .delete('/api/v1/subnames/revoked-later.demo.eth')
        .set('x-auth-token', demoKey)
        .expect(204);
    });

    it('answers 401 before validating the body', async () => {
      expectProblem(await post({ label: 'a.b' }, null), 401, 'UNAUTHORIZED');
    });

    it('answers 403 PARENT_NOT_ALLOWED for a key of another parent, writing nothing', async () => {
      const before = await rowCount();
      expectProblem(
        await post({ parentName: 'demo.eth', label: 'intruder' }, otherKey),
        403,
        'PARENT_NOT_ALLOWED',
      );
      // A key for demo.eth is not valid for a deeper parent either.
      expectProblem(await post({ parentName: 'sub.demo.eth', label: 'x' }), 403, 'PARENT_NOT_ALLOWED');
      expect(await rowCount()).toBe(before);
    });

    const invalid: Array<[string, Record<string, unknown>, string, string]> = [
      ['a label with a dot', { label: 'a.b' }, 'INVALID_NAME', 'body.label'],
      ['a label that cannot be normalised', { label: 'a b' }, 'INVALID_NAME', 'body.label'],
      ['an empty label', { label: '' }, 'INVALID_INPUT', 'body.label'],
      ['a label over 255 characters', { label: 'a'.repeat(256) }, 'INVALID_INPUT', 'body.label'],
      ['a label over 255 bytes', { label: '💩'.repeat(64) }, 'INVALID_NAME', 'body.label'],
      ['a parent shorter than 7', { parentName: 'a.eth' }, 'INVALID_INPUT', 'body.parentName'],
      ['a parent that cannot be normalised', { parentName: 'demo..eth' }, 'INVALID_NAME', 'body.parentName'],
      ['a missing label', { label: undefined }, 'INVALID_INPUT', 'body.label'],
      ['a bad owner', { owner: '0x1234' }, 'INVALID_INPUT', 'body.owner'],
      [
        'a bad ETH address',
        { addresses: [{ coin: 60, value: '0xnope' }] },
        'INVALID_INPUT',
        'body.addresses.0.value',
      ],
      [
        'a mis-checksummed ETH address',
        { addresses: [{ coin: 60, value: ALICE.replace('C', 'c') }] },
        'INVALID_INPUT',
        'body.addresses.0.value',
      ],
      [
        'an ETH address as BTC',
        { addresses: [{ coin: 0, value: ALICE }] },
        'INVALID_INPUT',
        'body.addresses.0.value',
      ],
      [
        'a non-integer coin',
        { addresses: [{ coin: 1.5, value: ALICE }] },
        'INVALID_INPUT',
        'body.addresses.0.coin',
      ],
      [
        'a duplicate coin',
        {
          addresses: [
            { coin: 60, value: ALICE },
            { coin: 60, value: BOB },
          ],
        },
        'INVALID_INPUT',
        'body.addresses.1.coin',
      ],
      ['a bad contenthash', { contenthash: 'ipfs://not-a-cid' }, 'INVALID_INPUT', 'body.contenthash'],
      [
        'an unknown contenthash scheme',
        { contenthash: 'http://example.com' },
        'INVALID_INPUT',
        'body.contenthash',
      ],
      ['a negative ttl', { ttl: -1 }, 'INVALID_INPUT', 'body.ttl'],
      ['a fractional ttl', { ttl: 1.5 }, 'INVALID_INPUT', 'body.ttl'],
      ['a string ttl', { ttl: '60' }, 'INVALID_INPUT', 'body.ttl'],
      ['an empty text key', { texts: [{ key: '', value: 'x' }] }, 'INVALID_INPUT', 'body.texts.0.key'],
      [
        'a text value over 4096',
        { texts: [{ key: 'k', value: 'x'.repeat(4097) }] },
        'INVALID_INPUT',
        'body.texts.0.value',
      ],
      [
        'a duplicate text key',
        {
          texts: [
            { key: 'k', value: '1' },
            { key: 'k', value: '2' },
          ],
        },
        'INVALID_INPUT',
        'body.texts.1.key',
      ],
      [
        'over 100 text records',
        { texts: Array.from({ length: 101 }, (_, i) => ({ key: `k${i}`, value: 'v' })) },
        'INVALID_INPUT',
        'body.texts',
      ],
      [
        'a metadata value over 256',
        { metadata: [{ key: 'k', value: 'x'.repeat(257) }] },
        'INVALID_INPUT',
        'body.metadata.0.value',
      ],
      [
        'metadata over 1024 bytes in all',
        { metadata: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: 'é'.repeat(110) })) },
        'INVALID_INPUT',
        'body.metadata',
      ],
      [
        'over 20 metadata entries',
        { metadata: Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, value: 'v' })) },
        'INVALID_INPUT',
        'body.metadata',
      ],
      ['texts that are not a list', { texts: { avatar: 'x' } }, 'INVALID_INPUT', 'body.texts'],
    ];

    it.each(invalid)(
      'answers 400 for %s, naming the field and writing nothing',
      async (_what, patch, code, path) => {
        const before = await rowCount();
        const res = await post({ parentName: 'demo.eth', label: 'valid', ...patch });
        expectProblem(res, 400, code);
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
        expect(await rowCount()).toBe(before);
      },
    );

    it('names every bad field of one request', async () => {
      const res = await post({
        parentName: 'demo.eth',
        label: 'valid',
        owner: 'bob',
        ttl: -5,
        addresses: [{ coin: 60, value: 'nope' }],
        contenthash: 'ipfs://x',
      });
      expectProblem(res, 400, 'INVALID_INPUT');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
        ['body.addresses.0.value', 'body.contenthash', 'body.owner', 'body.ttl'].sort(),
      );
    });

    it('an unknown field anywhere in the body is a 400 naming it, and nothing is written (finding: 201)', async () => {
      const before = await rowCount();
      const top = await post({ parentName: 'demo.eth', label: 'strict', extra: 1 });
      expectProblem(top, 400, 'INVALID_INPUT');
      expect(top.body.errors).toEqual([{ path: 'body.extra', message: 'unknown field' }]);
      const nested = await post({
        parentName: 'demo.eth',
        label: 'strict',
        texts: [{ key: 'a', value: 'b', x: 1 }],
      });
      expectProblem(nested, 400, 'INVALID_INPUT');
      expect(nested.body.errors).toEqual([{ path: 'body.texts.0.x', message: 'unknown field' }]);
      const search = await request(svc.app)
        .post('/api/v1/subnames/search')
        .send({ parentName: 'demo.eth', sort: 'label' })
        .expect(400);
      expect(search.body.errors).toEqual([{ path: 'body.sort', message: 'unknown field' }]);
      expect(await rowCount()).toBe(before);
      const doc = (await request(svc.app).get('/openapi.json').expect(200)).body;
      const body = doc.paths['/api/v1/subnames'].post.requestBody.content['application/json'].schema;
      expect(body.additionalProperties).toBe(false);
    });

    it('without a key, a request announcing a huge body is answered 401 at once (finding: no answer for 8 s)', async () => {
      const running = await listenForTests(svc.app);
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const { hostname, port } = new URL(running.url);
          const socket = net.connect(Number(port), hostname, () => {
            // 430 MB announced; not one byte of the body is sent.
            socket.write(
              'POST /api/v1/subnames/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
                'Content-Length: 430000000\r\n\r\n',
            );
          });
          socket.once('data', (chunk: Buffer) => {
            resolve(Number(chunk.toString().split(' ')[1]));
            socket.destroy();
          });
          socket.on('error', reject);
        });
        expect(status).toBe(401);
      } finally {
        await running.shutdown();
      }
    });

    it('stores the largest allowed write (longest multibyte parent and label, fullest metadata)', async () => {
      const parentName = `${'中'.repeat(120)}.${'中'.repeat(129)}.eth`;
      expect(parentName.length).toBeLessThanOrEqual(255);
      const key = await svc.keyFor(parentName);
      // 20 entries whose JSON is just under 1024 bytes.
      const metadata = Array.from({ length: 20 }, (_, i) => ({
        key: `key-${String(i).padStart(2, '0')}`,
        value: 'v'.repeat(38),
      }));
      expect(
        Buffer.byteLength(JSON.stringify(Object.fromEntries(metadata.map((m) => [m.key, m.value])))),
      ).toBeLessThanOrEqual(1024);
      const res = await post({ parentName, label: 'a'.repeat(255), metadata }, key);
      expect(res.status).toBe(201);
      const found = await request(svc.app)
        .post('/api/v1/subnames/search')
        .send({ parentName, metadata: { 'key-19': 'v'.repeat(38) } })
        .expect(200);
      expect(found.body.totalItems).toBe(1);
    });

    it('answers 400 INVALID_JSON for a malformed body', async () => {
      const res = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', demoKey)
        .set('content-type', 'application/json')
        .send('{"parentName":');
      expectProblem(res, 400, 'INVALID_JSON');
    });

    it('concurrent create-or-update of one name makes one row and loses no field', async () => {
      const base = { parentName: 'demo.eth', label: 'race' };
      const writes = [
        { owner: BOB },
        { texts: [{ key: 'name', value: 'Race' }] },
        { addresses: [{ coin: 60, value: BOB }] },
        { metadata: [{ key: 'team', value: 'red' }] },
        { contenthash: IPFS },
        { ttl: 42 },
      ];
      const responses = await Promise.all(
        Array.from({ length: 4 }).flatMap(() => writes.map((w) => post({ ...base, ...w }))),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(statuses.length - 1);
      const rows = await svc.db.db
        .selectFrom('offchain_subnames')
        .selectAll()
        .where('label', '=', 'race')
        .execute();
      expect(rows).toHaveLength(1);
      const stored = (await request(svc.app).get('/api/v1/subnames/race.demo.eth').expect(200)).body;
      expect(stored).toMatchObject({
        owner: BOB,
        texts: { name: 'Race' },
        addresses: { '60': BOB },
        metadata: { team: 'red' },
        contenthash: IPFS,
        ttl: 42,
      });
      expect(new Set(responses.map((r) => r.body.id))).toEqual(new Set([stored.id]));
    });
  });

  describe('GET /api/v1/subnames/{fullSubname} and /namehash/{namehash}', () => {
    it('returns a subname by its (normalised) full name', async () => {
      const res = await request(svc.app).get('/api/v1/subnames/ALICE.demo.eth').expect(200);
      expect(res.body.fullName).toBe('alice.demo.eth');
    });

    it('answers 404 SUBNAME_NOT_FOUND for an unknown name', async () => {
      expectProblem(await request(svc.app).get('/api/v1/subnames/nobody.demo.eth'), 404, 'SUBNAME_NOT_FOUND');
    });

    it('answers 400 INVALID_NAME for a name that cannot be normalised', async () => {
      expectProblem(await request(svc.app).get('/api/v1/subnames/a%20b.demo.eth'), 400, 'INVALID_NAME');
    });

    it('returns a subname by namehash (any case)', async () => {
      const node = namehash('alice.demo.eth');
      const res = await request(svc.app).get(
        `/api/v1/subnames/namehash/${node.toUpperCase().replace('0X', '0x')}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.fullName).toBe('alice.demo.eth');
    });

    it('answers 404 for an unknown namehash and 400 for a malformed one', async () => {
      const res = await request(svc.app).get(`/api/v1/subnames/namehash/${namehash('nobody.demo.eth')}`);
      expectProblem(res, 404, 'SUBNAME_NOT_FOUND');
      const bad = await request(svc.app).get('/api/v1/subnames/namehash/0x1234');
      expectProblem(bad, 400, 'INVALID_INPUT');
      expect(bad.body.errors[0].path).toBe('params.namehash');
    });
  });

  describe('DELETE /api/v1/subnames/{fullSubname}', () => {
    beforeAll(async () => {
      await post({ parentName: 'demo.eth', label: 'doomed' }).expect(201);
    });

    it('answers 401 without a key and 403 with a key of another parent, deleting nothing', async () => {
      expectProblem(await request(svc.app).delete('/api/v1/subnames/doomed.demo.eth'), 401, 'UNAUTHORIZED');
      expectProblem(
        await request(svc.app).delete('/api/v1/subnames/doomed.demo.eth').set('x-auth-token', otherKey),
        403,
        'PARENT_NOT_ALLOWED',
      );
      await request(svc.app).get('/api/v1/subnames/doomed.demo.eth').expect(200);
    });

    it('deletes (204), then answers 404', async () => {
      await request(svc.app)
        .delete('/api/v1/subnames/Doomed.demo.eth')
        .set('x-auth-token', demoKey)
        .expect(204);
      await request(svc.app).get('/api/v1/subnames/doomed.demo.eth').expect(404);
      expectProblem(
        await request(svc.app).delete('/api/v1/subnames/doomed.demo.eth').set('x-auth-token', demoKey),
        404,
        'SUBNAME_NOT_FOUND',
      );
    });
  });

  describe('POST /api/v1/subnames/search', () => {
    const search = (body: Record<string, unknown>) =>
      request(svc.app).post('/api/v1/subnames/search').send(body);

    beforeAll(async () => {
      const labels = [
        'apple',
        'apricot',
        'banana',
        'blueberry',
        'cherry',
        'grape',
        'guava',
        'kiwi',
        'lemon',
        'lime',
      ];
      for (const [i, label] of labels.entries()) {
        await post(
          {
            parentName: 'other.eth',
            label,
            owner: i % 2 === 0 ? ALICE : BOB,
            metadata: [
              { key: 'color', value: i < 5 ? 'red' : 'green' },
              { key: 'size', value: i % 3 === 0 ? 'big' : 'small' },
            ],
          },
          otherKey,
        ).expect(201);
      }
      await post({ parentName: 'other.eth', label: '_a%b' }, otherKey).expect(400); // ENSIP-15: no %
      await post({ parentName: 'other.eth', label: '_ab' }, otherKey).expect(201);
      await post({ parentName: 'other.eth', label: 'axbyc' }, otherKey).expect(201);
    });

    it('pages a parent ordered by label, with totalItems', async () => {
      const first = (await search({ parentName: 'other.eth', size: 5 }).expect(200)).body;
      expect(first).toMatchObject({ totalItems: 12, page: 1, size: 5 });
      expect(first.items.map((s: { label: string }) => s.label)).toEqual([
        '_ab',
        'apple',
        'apricot',
        'axbyc',
        'banana',
      ]);
      const third = (await search({ parentName: 'other.eth', size: 5, page: 3 }).expect(200)).body;
      expect(third.items.map((s: { label: string }) => s.label)).toEqual(['lemon', 'lime']);
      const beyond = (await search({ parentName: 'other.eth', size: 5, page: 4 }).expect(200)).body;
      expect(beyond).toMatchObject({ items: [], totalItems: 12, page: 4 });
    });

    it('defaults to page 1 and size 25', async () => {
      const res = (await search({ parentName: 'other.eth' }).expect(200)).body;
      expect(res).toMatchObject({ page: 1, size: 25, totalItems: 12 });
      expect(res.items).toHaveLength(12);
    });

    it('searches several parents (parentNames, with parentName)', async () => {
      const res = (await search({ parentNames: ['demo.eth', 'OTHER.eth'], size: 100 }).expect(200)).body;
      const demoCount = (await search({ parentName: 'demo.eth', size: 100 }).expect(200)).body.totalItems;
      expect(res.totalItems).toBe(12 + demoCount);
      const both = (await search({ parentName: 'demo.eth', parentNames: ['other.eth'] }).expect(200)).body;
      expect(both.totalItems).toBe(res.totalItems);
    });

    it('labelSearch is a case-insensitive substring; % and _ are literal; order is by code point', async () => {
      const ap = (await search({ parentName: 'other.eth', labelSearch: 'AP' }).expect(200)).body;
      expect(ap.items.map((s: { label: string }) => s.label)).toEqual(['apple', 'apricot', 'grape']);
      expect(ap.totalItems).toBe(3);
      const underscore = (await search({ parentName: 'other.eth', labelSearch: '_a' }).expect(200)).body;
      expect(underscore.items.map((s: { label: string }) => s.label)).toEqual(['_ab']);
      const percent = (await search({ parentName: 'other.eth', labelSearch: '%' }).expect(200)).body;
      expect(percent.totalItems).toBe(0);
      const none = (await search({ parentName: 'other.eth', labelSearch: 'zzz' }).expect(200)).body;
      expect(none).toMatchObject({ items: [], totalItems: 0 });
    });

    it('filters by owner (any case) and by metadata', async () => {
      const alice = (await search({ parentName: 'other.eth', owner: ALICE.toLowerCase() }).expect(200)).body;
      expect(alice.totalItems).toBe(5);
      expect(alice.items.every((s: { owner: string }) => s.owner === ALICE)).toBe(true);
      const red = (await search({ parentName: 'other.eth', metadata: { color: 'red' } }).expect(200)).body;
      expect(red.items.map((s: { label: string }) => s.label)).toEqual([
        'apple',
        'apricot',
        'banana',
        'blueberry',
        'cherry',
      ]);
      const redBig = (
        await search({ parentName: 'other.eth', metadata: { color: 'red', size: 'big' } }).expect(200)
      ).body;
      expect(redBig.items.map((s: { label: string }) => s.label)).toEqual(['apple', 'blueberry']);
      const combined = (
        await search({
          parentName: 'other.eth',
          labelSearch: 'e',
          owner: BOB,
          metadata: { color: 'green' },
        }).expect(200)
      ).body;
      expect(combined.items.map((s: { label: string }) => s.label)).toEqual(['grape', 'lime']);
    });

    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['size above 100', { parentName: 'other.eth', size: 101 }, 'body.size'],
      ['size 0', { parentName: 'other.eth', size: 0 }, 'body.size'],
      ['page 0', { parentName: 'other.eth', page: 0 }, 'body.page'],
      ['no parent', { labelSearch: 'a' }, 'body.parentName'],
      ['a bad owner', { parentName: 'other.eth', owner: 'alice' }, 'body.owner'],
      ['an empty parentNames', { parentNames: [] }, 'body.parentNames'],
      ['an empty labelSearch', { parentName: 'other.eth', labelSearch: '' }, 'body.labelSearch'],
      [
        'metadata that is not a map of strings',
        { parentName: 'other.eth', metadata: { a: 1 } },
        'body.metadata.a',
      ],
    ];
    it.each(bad)('answers 400 INVALID_INPUT for %s', async (_what, body, path) => {
      const res = await search(body);
      expectProblem(res, 400, 'INVALID_INPUT');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  });
});
