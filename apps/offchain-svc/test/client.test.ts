import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createOffchainClient,
  offchainResponseSchemas,
  ServiceError,
  type OffchainClient,
} from '@nrp/client';
import { namehash } from '@nrp/ens';
import { ALICE, IPFS, startOffchainService, type OffchainService } from './helpers';

describe('@nrp/client offchain client against the service on port 0', () => {
  let svc: OffchainService;
  let server: Server;
  let client: OffchainClient;
  let key: string;

  beforeAll(async () => {
    svc = await startOffchainService();
    key = await svc.keyFor('client.eth');
    server = svc.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    client = createOffchainClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      responseSchemas: offchainResponseSchemas,
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await svc.close();
  });

  it('creates, updates, reads (by name and namehash), searches and deletes', async () => {
    const created = await client.createOrUpdateSubname(
      { parentName: 'client.eth', label: 'one', owner: ALICE, texts: [{ key: 'url', value: 'https://one' }] },
      key,
    );
    expect(created).toMatchObject({
      fullName: 'one.client.eth',
      owner: ALICE,
      texts: { url: 'https://one' },
    });
    const updated = await client.createOrUpdateSubname(
      { parentName: 'client.eth', label: 'one', contenthash: IPFS },
      key,
    );
    expect(updated).toMatchObject({ id: created.id, contenthash: IPFS, texts: { url: 'https://one' } });
    expect(await client.getSubname('ONE.client.eth')).toEqual(updated);
    expect(await client.getSubnameByNamehash(namehash('one.client.eth'))).toEqual(updated);
    await client.createOrUpdateSubname({ parentName: 'client.eth', label: 'two' }, key);
    const page = await client.searchSubnames({ parentName: 'client.eth', labelSearch: 'O', size: 1 });
    expect(page).toMatchObject({ totalItems: 2, page: 1, size: 1 });
    expect(page.items.map((s) => s.label)).toEqual(['one']);
    await client.deleteSubname('one.client.eth', key);
    await expect(client.getSubname('one.client.eth')).rejects.toMatchObject({
      status: 404,
      code: 'SUBNAME_NOT_FOUND',
    });
  });

  it('surfaces problems as ServiceError with status and code', async () => {
    const noKey = client.createOrUpdateSubname({ parentName: 'client.eth', label: 'x' }, 'offchain_wrong');
    await expect(noKey).rejects.toBeInstanceOf(ServiceError);
    await expect(noKey).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await expect(
      client.createOrUpdateSubname({ parentName: 'other.eth', label: 'x' }, key),
    ).rejects.toMatchObject({
      status: 403,
      code: 'PARENT_NOT_ALLOWED',
    });
    await expect(client.searchSubnames({ parentName: 'client.eth', size: 101 })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
    });
  });
});
