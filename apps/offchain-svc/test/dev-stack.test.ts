import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, EnsPlugin, JsonRpcProvider, Network } from 'ethers';
import { l2NameResolverArtifact } from '@nrp/contracts';
import request from 'supertest';
import { createLogger, loadConfig, type ServiceInstance } from '@nrp/server';
import {
  deployDevL2Parent,
  startAnvil,
  startEnsChain,
  type AnvilNode,
  type DevStackContext,
  type DevStackContribution,
  type EnsChain,
} from '@nrp/testkit';
import { configSchema } from '../src/config';
import { prepareDevStack } from '../dev/dev-stack';
import { createService } from '../src/service';

describe('dev stack hook', () => {
  let chain: EnsChain;
  let l2: AnvilNode;
  let l2Registry: string;
  let server: Server;
  let dataDir: string;
  let ctx: DevStackContext;
  let contribution: DevStackContribution;
  let instance: ServiceInstance;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startEnsChain();
    l2 = await startAnvil({ chainId: 84532 });
    const [owner] = chain.accounts;
    if (!owner) throw new Error('no anvil account 0');
    l2Registry = await deployDevL2Parent(chain.ens, l2, owner);
    dataDir = await mkdtemp(path.join(tmpdir(), 'offchain-dev-'));
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ctx = {
      rpcUrl: chain.anvil.rpcUrl,
      chainId: chain.anvil.chainId,
      network: 'sepolia',
      l2: { rpcUrl: l2.rpcUrl, chainId: l2.chainId, network: 'base-sepolia' },
      contracts: { l2Registry, ...chain.contracts },
      accounts: chain.accounts,
      services: {
        offchain: base,
        metadata: 'http://127.0.0.1:1',
        mint: 'http://127.0.0.1:1',
        resolver: 'http://127.0.0.1:1',
      },
      dataDir,
      env: {},
    };
    contribution = await prepareDevStack(ctx);
    const config = loadConfig(configSchema, { ...ctx.env, ...contribution.env, LOG_LEVEL: 'silent' });
    instance = await createService(config, createLogger('dev', 'silent'));
    server.on('request', instance.app);
    await contribution.afterStart?.();
    const network = new Network('sepolia', 11155111);
    network.attachPlugin(new EnsPlugin(chain.contracts.ensRegistry, 11155111));
    provider = new JsonRpcProvider(chain.anvil.rpcUrl, network, { staticNetwork: network });
  });

  afterAll(async () => {
    provider?.destroy();
    await new Promise((resolve) => server?.close(resolve));
    for (const step of instance?.onShutdown ?? []) await step();
    await chain?.stop();
    await l2?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('returns the parent name, the resolver contract and an API key', () => {
    expect(contribution.names).toEqual({ offchainParent: 'offchain.eth' });
    expect(contribution.contracts?.offchainResolver).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(contribution.offchainApiKey).toMatch(/^offchain_/);
    expect(contribution.env?.PGLITE_DATA_DIR).toBe(path.join(dataDir, 'offchain-svc', 'pglite'));
  });

  it('offchain.eth resolves through its OffchainResolver and this service’s gateway', async () => {
    const [owner, alice] = chain.accounts;
    expect(await chain.ens.registryOwner('offchain.eth')).toBe(owner?.address);
    expect(await chain.ens.resolverOf('offchain.eth')).toBe(contribution.contracts?.offchainResolver);
    const resolver = await provider.getResolver('alice.offchain.eth');
    expect(resolver?.address).toBe(contribution.contracts?.offchainResolver);
    expect(await resolver?.getText('name')).toBe('Alice (offchain)');
    expect(await provider.resolveName('alice.offchain.eth')).toBe(alice?.address);
    expect(await provider.resolveName('team.offchain.eth')).toBe(owner?.address);
  });

  it('l2.eth gets an L2NameResolver that sends lookups to this service’s L2 gateway for the stack’s registry', async () => {
    const l2Resolver = contribution.contracts?.l2Resolver ?? '';
    expect(await chain.ens.resolverOf('l2.eth')).toBe(l2Resolver);
    const resolver = new Contract(l2Resolver, l2NameResolverArtifact.abi, provider);
    expect(await resolver.getFunction('url')()).toBe(
      `${ctx.services.offchain}/api/v1/gateway/l2/base-sepolia/${l2Registry}/{sender}/{data}.json`,
    );
    expect(await resolver.getFunction('l2ChainId')()).toBe(84532n);
    expect(await resolver.getFunction('l2Registry')()).toBe(l2Registry);
  });

  it('the API key is valid for offchain.eth and demo.eth, not for others', async () => {
    const key = contribution.offchainApiKey ?? '';
    const post = (parentName: string) =>
      request(instance.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName, label: 'devtest' });
    expect((await post('offchain.eth')).status).toBe(201);
    expect((await post('demo.eth')).status).toBe(201);
    expect((await post('other.eth')).status).toBe(403);
    const search = await request(instance.app)
      .post('/api/v1/subnames/search')
      .send({ parentName: 'offchain.eth', metadata: { tier: 'gold' } })
      .expect(200);
    expect(search.body.items.map((s: { label: string }) => s.label)).toEqual(['alice', 'team']);
  });

  it('keeps its keys across restarts of the same data directory', async () => {
    const again = await prepareDevStack(ctx);
    expect(again.offchainApiKey).toBe(contribution.offchainApiKey);
    expect(again.env?.GATEWAY_SIGNER_KEY).toBe(contribution.env?.GATEWAY_SIGNER_KEY);
  });
});
