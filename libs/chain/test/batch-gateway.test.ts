/**
 * The ENSIP-21 batch gateway path: ENS's own OffchainResolver (no ENSIP-22) behind our UniversalResolver gets one
 * request per record, which ChainProvider runs itself for `x-batch-gateway:true` (each under the URL policy and the
 * timeout) or sends to a remote batch gateway (BATCH_GATEWAY_URLS) whose answer is checked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet, type JsonRpcPayload, type JsonRpcResult } from 'ethers';
import { namehash, type Hex } from '@nrp/ens';
import { startEnsChain, type EnsChain } from '@nrp/testkit/src/ens-fixture';
import { startTestGateway, type TestGateway } from '@nrp/testkit/src/test-gateway';
import {
  ChainProvider,
  LOCAL_BATCH_GATEWAY_URL,
  UpstreamError,
  decodeTextResult,
  networksEnvSchema,
  networksFromEnv,
  resolverInterface,
  universalResolve,
  type NetworkConfig,
} from '../src';

const text = (name: string, key: string): Hex =>
  resolverInterface.encodeFunctionData('text', [namehash(name), key]) as Hex;
const NAME = 'x.legacy.eth';

class CountingProvider extends ChainProvider {
  calls = 0;
  override _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    this.calls += Array.isArray(payload) ? payload.length : 1;
    return super._send(payload);
  }
}

describe('ENSIP-21 batch gateway (ChainProvider)', () => {
  let chain: EnsChain;
  let gateway: TestGateway;
  let config: NetworkConfig;
  let garbage: Server;
  let garbageOrigin: string;
  const signer = Wallet.createRandom();

  beforeAll(async () => {
    chain = await startEnsChain();
    gateway = await startTestGateway({
      signerKey: signer.privateKey,
      records: { [NAME]: { texts: { a: 'one', b: 'two', c: 'three' } } },
    });
    const resolver = await chain.ens.deployEnsOffchainResolver(gateway.url, [signer.address]);
    await chain.ens.registerEthName('legacy', chain.accounts[0]?.address ?? '', { resolver });
    // A "batch gateway" that answers 200 with data that is not (bool[], bytes[]).
    garbage = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: '0x1234' }));
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    garbageOrigin = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
    config = networksFromEnv(
      networksEnvSchema.parse({
        SEPOLIA_RPC_URL: chain.anvil.rpcUrl,
        SEPOLIA_ENS_REGISTRY: chain.contracts.ensRegistry,
        SEPOLIA_UNIVERSAL_RESOLVER: chain.contracts.universalResolver,
        RPC_TIMEOUT_MS: '2000',
        CCIP_READ_ALLOWED_ORIGINS: `http://127.0.0.1:${gateway.port},${garbageOrigin}`,
      }),
    ).sepolia;
  });

  afterAll(async () => {
    await new Promise((resolve) => garbage?.close(resolve));
    await gateway?.stop();
    await chain?.stop();
  });

  afterEach(() => gateway.setFault(null));

  const resolveWith = async (overrides: Partial<NetworkConfig>, keys: string[]) => {
    const provider = new CountingProvider({ ...config, ...overrides });
    try {
      const answer = await universalResolve(
        provider,
        config.ens.universalResolver,
        NAME,
        keys.map((key) => text(NAME, key)),
        overrides.batchGatewayUrls ?? config.batchGatewayUrls,
      );
      return { answer, rpcCalls: provider.calls };
    } finally {
      provider.destroy();
    }
  };

  it('defaults to the local batch gateway; BATCH_GATEWAY_URLS lists others', () => {
    expect(config.batchGatewayUrls).toEqual([LOCAL_BATCH_GATEWAY_URL]);
    const parsed = networksEnvSchema.parse({
      BATCH_GATEWAY_URLS: 'https://ccip-v3.ens.xyz, x-batch-gateway:true',
    });
    expect(networksFromEnv(parsed).mainnet.batchGatewayUrls).toEqual([
      'https://ccip-v3.ens.xyz',
      LOCAL_BATCH_GATEWAY_URL,
    ]);
    for (const bad of ['ftp://gateway.example', 'not a url', ' , ']) {
      expect(networksEnvSchema.safeParse({ BATCH_GATEWAY_URLS: bad }).success).toBe(false);
    }
  });

  it('runs the batch itself: one request per record, one eth_call and its callback', async () => {
    const before = gateway.requestCount();
    const { answer, rpcCalls } = await resolveWith({}, ['a', 'b', 'c']);
    expect(answer.results.map((r) => decodeTextResult(r))).toEqual(['one', 'two', 'three']);
    expect(gateway.requestCount() - before).toBe(3);
    expect(rpcCalls).toBe(2);
  });

  it('a failing inner request is an UpstreamError carrying the gateway HTTP error', async () => {
    gateway.setFault('http-500');
    const err = await resolveWith({}, ['a']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ upstreamCode: 'HttpError' });
    expect((err as UpstreamError).upstreamMessage).toMatch(/gateway HTTP 500: .*test gateway fault/);
  });

  it('a gateway URL the policy refuses fails that lookup, with the reason', async () => {
    const err = await resolveWith({ ccipReadAllowedOrigins: [] }, ['a', 'b']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).upstreamMessage).toMatch(/refused.*only https/);
  });

  it('a hanging inner request ends within the timeout', async () => {
    gateway.setFault('hang');
    const err = await resolveWith({ rpcTimeoutMs: 300 }, ['a']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
  });

  it('a remote batch gateway that answers garbage is an UpstreamError, not a contract revert', async () => {
    const err = await resolveWith({ batchGatewayUrls: [`${garbageOrigin}/batch`] }, ['a']).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ upstreamCode: 'OFFCHAIN_FAULT' });
    expect((err as UpstreamError).upstreamMessage).toMatch(/batch gateway answered garbage/);
  });
});
