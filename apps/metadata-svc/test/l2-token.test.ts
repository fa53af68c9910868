/**
 * Token metadata and images of L2 subnames through HTTP: an L2Registry for `l2.eth` on an anvil with Base Sepolia's
 * chain id (84532), reached through an RPC proxy that can drop the connection (the L2 node gone), beside the usual
 * sepolia ENS chain.
 */
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import sharp from 'sharp';
import type { Address } from 'viem';
import { createMetadataClient, metadataResponseSchemas, ServiceError } from '@nrp/client';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import {
  expectProblem,
  l2RegistryAbi,
  startL2Chain,
  startRpcProxy,
  until,
  type EnsChain,
  type L2Chain,
  type RpcProxy,
} from '@nrp/testkit';
import { BASE_URL, startEnsChain, startMetadataService, walletOf, type MetadataService } from './support';

const OTHER_CONTRACT = '0x00000000000000000000000000000000000000c0';

let chain: EnsChain;
let l2: L2Chain;
let proxy: RpcProxy;
let h: MetadataService;
let holder: string;
let registry: Address;
let aliceExpiry: bigint;

const id = (name: string) => tokenIdFromNamehash(namehash(name));
const tokenPath = (name: string, contract: string = registry, network = 'base-sepolia') =>
  `/${network}/${contract}/${id(name)}`;
const get = (path: string) => request(h.app).get(path);

function binary(path: string, headers: Record<string, string> = {}) {
  return get(path)
    .set(headers)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
}

const register = async (label: string, expiry: bigint) => l2.register(registry, label, holder, expiry);

beforeAll(async () => {
  [chain, l2] = await Promise.all([startEnsChain({ chainId: 11155111 }), startL2Chain()]);
  proxy = await startRpcProxy(l2.anvil.rpcUrl);
  registry = await l2.deployRegistry('l2.eth', { ownerIsController: true });
  holder = walletOf(chain, 1).address;
  aliceExpiry = (await l2.now()) + 365n * 86400n;
  await register('alice', aliceExpiry);
  h = await startMetadataService(chain, {
    BASE_SEPOLIA_RPC_URL: proxy.url,
    BASE_SEPOLIA_L2_REGISTRIES: registry,
    METADATA_CACHE_TTL_MS: '0',
    AVATAR_CACHE_TTL_MS: '0',
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await proxy?.stop();
  await l2?.stop();
  await chain?.stop();
});

afterEach(() => proxy.setFault(undefined));

describe('L2 token metadata: /{network}/{registry}/{tokenId}', () => {
  it('describes a live L2 name: its full name, expiry and the image route of the token', async () => {
    const res = await get(tokenPath('alice.l2.eth')).expect(200);
    const image = `${BASE_URL}/base-sepolia/${registry}/${id('alice.l2.eth')}/image`;
    expect(res.body).toEqual({
      name: 'alice.l2.eth',
      description: 'alice.l2.eth, an ENS name.',
      image,
      image_url: image,
      attributes: [
        { trait_type: 'Length', display_type: 'number', value: 5 },
        { trait_type: 'Segment Length', display_type: 'number', value: 5 },
        { trait_type: 'Character Set', display_type: 'string', value: 'letter' },
        { trait_type: 'Expiration Date', display_type: 'date', value: Number(aliceExpiry) * 1000 },
      ],
      name_length: 5,
      segment_length: 5,
      url: 'https://app.ens.domains/alice.l2.eth',
      is_normalized: true,
      version: 2,
    });
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });

  it('takes the token id in 0x-hex and the registry in lower case; the image URL names it checksummed', async () => {
    const res = await get(`/base-sepolia/${registry.toLowerCase()}/${namehash('alice.l2.eth')}`).expect(200);
    expect(res.body.name).toBe('alice.l2.eth');
    expect(res.body.image).toBe(`${BASE_URL}/base-sepolia/${registry}/${namehash('alice.l2.eth')}/image`);
  });

  it('is read through the typed client, problems included', async () => {
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const client = createMetadataClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        responseSchemas: metadataResponseSchemas,
      });
      const metadata = await client.getContractTokenMetadata('base-sepolia', registry, id('alice.l2.eth'));
      expect(metadata.name).toBe('alice.l2.eth');
      const unknown = client.getContractTokenMetadata('base-sepolia', OTHER_CONTRACT, id('alice.l2.eth'));
      await expect(unknown).rejects.toBeInstanceOf(ServiceError);
      await expect(unknown).rejects.toMatchObject({ status: 404, code: 'UNKNOWN_CONTRACT' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('renders the image of an L2 token as a 270×270 PNG with an ETag (304 when unchanged)', async () => {
    const res = await binary(`${tokenPath('alice.l2.eth')}/image`).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    const meta = await sharp(res.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 270, 270]);
    const etag = String(res.headers.etag);
    await binary(`${tokenPath('alice.l2.eth')}/image`, { 'If-None-Match': etag }).expect(304);
  });

  it('404 TOKEN_NOT_FOUND for a name never registered, on the metadata and the image', async () => {
    expectProblem(await get(tokenPath('nobody.l2.eth')), 404, 'TOKEN_NOT_FOUND');
    expectProblem(await get(`${tokenPath('nobody.l2.eth')}/image`), 404, 'TOKEN_NOT_FOUND');
  });

  it('404 TOKEN_NOT_FOUND for a revoked name', async () => {
    await register('revoked', (await l2.now()) + 86400n);
    await get(tokenPath('revoked.l2.eth')).expect(200);
    await l2.send(l2.account(0), registry, l2RegistryAbi, 'revoke', [namehash('revoked.l2.eth')]);
    expectProblem(await get(tokenPath('revoked.l2.eth')), 404, 'TOKEN_NOT_FOUND');
  });

  it('404 TOKEN_NOT_FOUND once the name has expired on the L2', async () => {
    await register('brief', (await l2.now()) + 600n);
    await get(tokenPath('brief.l2.eth')).expect(200);
    await l2.increaseTime(3600);
    const problem = expectProblem(await get(tokenPath('brief.l2.eth')), 404, 'TOKEN_NOT_FOUND');
    expect(problem.detail).toContain('84532');
    expectProblem(await get(`${tokenPath('brief.l2.eth')}/image`), 404, 'TOKEN_NOT_FOUND');
  });

  it('404 UNKNOWN_CONTRACT for a contract that is not a served registry of that network', async () => {
    const other = expectProblem(
      await get(tokenPath('alice.l2.eth', OTHER_CONTRACT)),
      404,
      'UNKNOWN_CONTRACT',
    );
    expect(other.detail).toContain(registry);
    expectProblem(await get(`${tokenPath('alice.l2.eth', OTHER_CONTRACT)}/image`), 404, 'UNKNOWN_CONTRACT');
    // The registry is served on base-sepolia only; on sepolia only the NameWrapper is.
    expectProblem(await get(tokenPath('alice.l2.eth', registry, 'base')), 404, 'UNKNOWN_CONTRACT');
    expectProblem(await get(tokenPath('alice.l2.eth', registry, 'sepolia')), 404, 'UNKNOWN_CONTRACT');
  });

  it('400 INVALID_INPUT for an unknown network (the four are named) or a malformed contract or token id', async () => {
    const problem = expectProblem(
      await get(tokenPath('alice.l2.eth', registry, 'optimism')),
      400,
      'INVALID_INPUT',
    );
    expect(problem.detail).toContain('"mainnet"|"sepolia"|"base"|"base-sepolia"');
    expectProblem(await get(`/base-sepolia/0x1234/${id('alice.l2.eth')}`), 400, 'INVALID_INPUT');
    expectProblem(await get(`/base-sepolia/${registry}/alice.l2.eth`), 400, 'INVALID_INPUT');
    expectProblem(await get(`/base-sepolia/${registry}/0x1${'0'.repeat(64)}`), 400, 'INVALID_INPUT');
  });

  it('documents the four networks in the OpenAPI enum of both routes', async () => {
    const { paths } = (await get('/openapi.json').expect(200)).body as {
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: { enum?: string[] } }> } }>;
    };
    for (const path of [
      '/{network}/{contractAddress}/{tokenId}',
      '/{network}/{contractAddress}/{tokenId}/image',
    ]) {
      const network = paths[path]?.get.parameters.find((p) => p.name === 'network');
      expect(network?.schema.enum).toEqual(['mainnet', 'sepolia', 'base', 'base-sepolia']);
    }
  });

  it('leaves /{network}/avatar/{name} to the avatar routes, and paths without a 0x contract to 404 NOT_FOUND', async () => {
    const res = await get('/sepolia/avatar/nobody.eth');
    expect(res.status).toBe(404);
    expect(res.body.code).not.toBe('INVALID_INPUT');
    expectProblem(await get(`/base-sepolia/registry/${id('alice.l2.eth')}`), 404, 'NOT_FOUND');
    expectProblem(await get(`/optimism/registry/${id('alice.l2.eth')}/image`), 404, 'NOT_FOUND');
  });

  it('serves wrapped names of an L1 at its NameWrapper address, wrapped names only', async () => {
    const alice = chain.accounts[1];
    if (!alice) throw new Error('anvil accounts');
    await chain.ens.registerEthName('wrapl1', alice.address);
    await chain.ens.wrapName('wrapl1.eth', alice.address);
    const wrapper = chain.contracts.nameWrapper;
    const res = await get(tokenPath('wrapl1.eth', wrapper, 'sepolia')).expect(200);
    expect(res.body.name).toBe('wrapl1.eth');
    expect(res.body.image).toBe(`${BASE_URL}/sepolia/${wrapper}/${id('wrapl1.eth')}/image`);
    await binary(`${tokenPath('wrapl1.eth', wrapper, 'sepolia')}/image`).expect(200);
    expectProblem(await get(tokenPath('unwrapped.eth', wrapper, 'sepolia')), 404, 'TOKEN_NOT_FOUND');
  });

  it('502 UPSTREAM_ERROR without internals while the L2 node is gone or answers garbage, /ready 503; then recovers', async () => {
    for (const fault of ['drop', 'not-json'] as const) {
      proxy.setFault(() => fault);
      for (const path of [tokenPath('alice.l2.eth'), `${tokenPath('alice.l2.eth')}/image`]) {
        const res = await get(path);
        const problem = expectProblem(res, 502, 'UPSTREAM_ERROR');
        const text = JSON.stringify(problem);
        expect(text).not.toContain('127.0.0.1');
        expect(text).not.toContain(new URL(proxy.url).port);
      }
    }
    proxy.setFault(() => 'drop');
    const ready = expectProblem(await get('/ready'), 503, 'SERVICE_UNAVAILABLE') as { checks?: object };
    expect(ready.checks).toMatchObject({ 'rpc:base-sepolia': 'rpc:base-sepolia unreachable' });
    proxy.setFault(undefined);
    await get(tokenPath('alice.l2.eth')).expect(200);
    // ethers keeps a block-number answer, a failure too, for 250 ms: ready again right after that.
    await until(async () => (await get('/ready')).status === 200, '/ready with the L2 node back', 5000);
  });
});
