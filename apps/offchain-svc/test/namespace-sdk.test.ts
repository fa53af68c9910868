/**
 * What the Namespace offchain-manager SDK sends that the contract's shapes did not cover: a search by `owner` alone
 * (across parents), and EVM chain ids sent as address-record coins.
 */
import request from 'supertest';
import { ALICE, BOB, startOffchainService, type OffchainService } from './helpers';

describe('Namespace SDK requests', () => {
  let svc: OffchainService;
  let key: string;

  beforeAll(async () => {
    svc = await startOffchainService();
    key = await svc.keyFor('one.eth', 'two.eth');
    const write = (parentName: string, label: string, owner: string) =>
      request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName, label, owner })
        .expect(201);
    await write('one.eth', 'bravo', ALICE);
    await write('two.eth', 'alpha', ALICE);
    await write('two.eth', 'bravo', ALICE);
    await write('one.eth', 'charlie', BOB);
  });
  afterAll(() => svc.close());

  it('a search by owner alone lists that owner’s subnames across parents, by label then parent', async () => {
    const res = await request(svc.app)
      .post('/api/v1/subnames/search')
      .send({ owner: ALICE.toLowerCase() })
      .expect(200);
    const body = res.body as { items: Array<{ fullName: string }>; totalItems: number };
    expect(body.items.map((s) => s.fullName)).toEqual(['alpha.two.eth', 'bravo.one.eth', 'bravo.two.eth']);
    expect(body).toMatchObject({ totalItems: 3, page: 1, size: 25 });

    const paged = await request(svc.app)
      .post('/api/v1/subnames/search')
      .send({ owner: ALICE, size: 1, page: 2, labelSearch: 'BR' })
      .expect(200);
    expect(paged.body).toMatchObject({ totalItems: 2, items: [{ fullName: 'bravo.two.eth' }] });
  });

  it('a search with no parent and no owner is still a 400', async () => {
    const res = await request(svc.app).post('/api/v1/subnames/search').send({ labelSearch: 'a' }).expect(400);
    expect(JSON.stringify(res.body)).toContain('give parentName, parentNames or owner');
  });

  it.each([
    [8453, BOB, "8453 is Base's chain id; its ENSIP-11 coin type is 2147492101"],
    [10, BOB, "10 is Optimism's chain id; its ENSIP-11 coin type is 2147483658"],
    [137, BOB, "137 is Polygon's chain id; its ENSIP-11 coin type is 2147483785"],
  ])(
    'coin %i (a chain id) is a 400 naming the coin type to send, and nothing is written',
    async (coin, value, hint) => {
      const res = await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'one.eth', label: 'coins', addresses: [{ coin, value }] })
        .expect(400);
      expect(res.body).toMatchObject({ code: 'INVALID_INPUT' });
      const errors = (res.body as { errors: Array<{ path: string; message: string }> }).errors;
      expect(errors).toEqual([{ path: 'body.addresses.0.coin', message: expect.stringContaining(hint) }]);
      expect((res.body as { detail: string }).detail).toContain(hint);
      await request(svc.app).get('/api/v1/subnames/coins.one.eth').expect(404);
    },
  );

  it('the ENSIP-11 coin type is accepted; a chain id whose value is valid for that coin still is', async () => {
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'one.eth', label: 'base', addresses: [{ coin: 2147492101, value: BOB }] })
      .expect(201);
    // Coin 0 is Bitcoin (and chain id 0 the ENSIP-19 default): a Bitcoin address is just that.
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({
        parentName: 'one.eth',
        label: 'btc',
        addresses: [{ coin: 0, value: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' }],
      })
      .expect(201);
  });
});
