import request from 'supertest';
import type { Wallet } from 'ethers';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import { expectUpstreamProblem, startAnvil, startTcpProxy, type EnsChain, type TcpProxy } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  imageRows,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  storedKeys,
  upload,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

// The RPC node behind a TCP proxy the test can make stall (accepts, never answers); a killed node is its own harness.
const RPC_TIMEOUT_MS = 500;
// What a loaded 2-core machine may add to one timeout: a request must not wait for several timeouts in a row.
const SLACK_MS = 1500;

let chain: EnsChain;
let proxy: TcpProxy;
let h: MetadataService;
let alice: Wallet;
let image: Buffer;
const tokenPath = (name: string) => `/metadata/network/11155111/token/${tokenIdFromNamehash(namehash(name))}`;
const avatarPath = (name: string) => `/profile/sepolia/${name}/avatar`;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: chain.anvil.port });
  alice = walletOf(chain, 1);
  image = await png();
  h = await startMetadataService(chain, {
    SEPOLIA_RPC_URL: proxy.url,
    RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
    METADATA_CACHE_TTL_MS: '0',
    AVATAR_CACHE_TTL_MS: '0',
  });
  await chain.ens.registerEthName('rpc', alice.address);
  // Wrapped, so token metadata finds its name (NameWrapper names()).
  await chain.ens.wrapName('rpc.eth', alice.address);
  await chain.ens.setText('rpc.eth', 'avatar', stableImageUrl(BASE_URL, 'sepolia', 'rpc.eth', 'avatar'));
}, 120_000);

afterAll(async () => {
  await h?.close();
  await proxy?.stop();
  await chain?.stop();
});

async function timed(req: request.Test): Promise<{ res: request.Response; ms: number }> {
  const started = Date.now();
  const res = await req;
  return { res, ms: Date.now() - started };
}

describe('the RPC node stalls or dies: 502 problem+json within RPC_TIMEOUT_MS, nothing written', () => {
  afterEach(() => proxy.setMode('forward'));

  it('a stalled node: token metadata, image.png, avatars and uploads answer 502 in time; then recover', async () => {
    const app = h.app;
    await request(app).get(tokenPath('rpc.eth')).expect(200);
    const fields = await signedFields(app, alice);
    const keysBefore = await storedKeys(h.context.blobs);
    proxy.setMode('stall');

    for (const path of [
      tokenPath('rpc.eth'),
      `${tokenPath('rpc.eth')}/image.png`,
      '/sepolia/avatar/rpc.eth',
    ]) {
      const { res, ms } = await timed(request(app).get(path));
      expectUpstreamProblem(res);
      expect(ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
    }
    const { res, ms } = await timed(upload(app, avatarPath('rpc.eth'), 'avatar', image, fields));
    expectUpstreamProblem(res);
    expect(ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
    expect((await imageRows(h.db)).filter((r) => r.name === 'rpc.eth')).toEqual([]);
    expect(await storedKeys(h.context.blobs)).toEqual(keysBefore);

    proxy.setMode('forward');
    await request(app).get(tokenPath('rpc.eth')).expect(200);
    await upload(app, avatarPath('rpc.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    await request(app).get(avatarPath('rpc.eth')).expect(200);
  });

  it('a killed node (SIGKILL by PID): 502 at once, the upload leaves no row and no bytes', async () => {
    const node = await startAnvil();
    process.kill(node.pid, 'SIGKILL');
    await node.stop();
    const dead = await startMetadataService(chain, {
      SEPOLIA_RPC_URL: node.rpcUrl,
      RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
    });
    try {
      const app = dead.app;
      for (const path of [
        tokenPath('rpc.eth'),
        `${tokenPath('rpc.eth')}/image.png`,
        '/sepolia/avatar/rpc.eth',
      ]) {
        const { res, ms } = await timed(request(app).get(path));
        expectUpstreamProblem(res);
        expect(ms).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
      }
      expectUpstreamProblem(
        await upload(app, avatarPath('rpc.eth'), 'avatar', image, await signedFields(app, alice)),
      );
      expect(await imageRows(dead.db)).toEqual([]);
      expect(await storedKeys(dead.context.blobs)).toEqual([]);
      const ready = await request(app).get('/ready').expect(503);
      expect(ready.body.checks['rpc:sepolia']).not.toBe('ok');
    } finally {
      await dead.close();
    }
  });
});

describe('a contract that answers no value where one is required', () => {
  it('a NameWrapper address without code: token metadata is 502 BAD_DATA (the upstream), not a crash', async () => {
    const misconfigured = await startMetadataService(chain, { SEPOLIA_NAME_WRAPPER: alice.address });
    try {
      const res = await request(misconfigured.app).get(tokenPath('rpc.eth'));
      expectUpstreamProblem(res);
      expect(res.body.upstream).toMatchObject({ code: 'BAD_DATA' });
      expect(res.body.detail).toContain(`NameWrapper names: undecodable answer from ${alice.address}`);
    } finally {
      await misconfigured.close();
    }
  });
});
