import { NonceManager, Wallet, id, type Contract } from 'ethers';
import { deployContract, erc721AvatarTestDoubleArtifact } from '@nrp/contracts';
// Direct module import: the testkit index also pulls in the S3/database/Redis helpers, not needed here.
import { startAnvil, type AnvilNode } from '@nrp/testkit/src/anvil';
import {
  NoValue,
  UpstreamError,
  callView,
  createNetworkProviders,
  createProvider,
  erc721Interface,
  networksEnvSchema,
  networksFromEnv,
  observeRpcCalls,
  readView,
  type ChainProvider,
  type NetworkConfig,
  type NetworkName,
  type RpcCall,
  type ViewCall,
} from '../src';

/** ERC721NonexistentToken(uint256): OpenZeppelin's revert for a token nobody owns. */
const NONEXISTENT_TOKEN_SELECTOR = id('ERC721NonexistentToken(uint256)').slice(0, 10);

describe('callView and readView against anvil', () => {
  let anvil: AnvilNode;
  let config: NetworkConfig;
  let provider: ChainProvider;
  let nft: Contract;
  let holder: string;

  const ownerOf = (tokenId: bigint, to = nft.target as string): ViewCall => ({
    to,
    abi: erc721Interface,
    fn: 'ownerOf',
    args: [tokenId],
    context: `owner of token ${tokenId}`,
  });

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 11155111 });
    config = networksFromEnv(
      networksEnvSchema.parse({ SEPOLIA_RPC_URL: anvil.rpcUrl, RPC_TIMEOUT_MS: '2000' }),
    ).sepolia;
    provider = createProvider(config);
    const [deployer, owner] = anvil.accounts;
    if (!deployer || !owner) throw new Error('anvil has no accounts');
    holder = owner.address;
    // Counts its own nonces: the provider under test may answer the deploy's nonce again for the next transaction.
    const signer = new NonceManager(new Wallet(deployer.privateKey, provider));
    nft = await deployContract(signer, erc721AvatarTestDoubleArtifact);
    await (await nft.getFunction('mint')(holder, 1n, 'https://img.example/1.json')).wait();
  }, 60_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.stop();
  });

  it('decodes the answer of the function', async () => {
    await expect(callView<[string]>(provider, ownerOf(1n))).resolves.toEqual([holder]);
    await expect(readView<[string]>(provider, ownerOf(1n))).resolves.toEqual([holder]);
  });

  it('a revert is the contract answer (NoValue with its revert data); readView makes it an UpstreamError', async () => {
    const answer = await callView(provider, ownerOf(2n));
    expect(answer).toBeInstanceOf(NoValue);
    expect((answer as NoValue).revertData?.slice(0, 10)).toBe(NONEXISTENT_TOKEN_SELECTOR);
    const err = await readView(provider, ownerOf(2n)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({
      upstreamCode: 'CALL_EXCEPTION',
      message: expect.stringMatching(/^owner of token 2: /),
    });
  });

  it('bytes that are not the answer (an address without code) are NoValue without revert data', async () => {
    const answer = await callView(provider, ownerOf(1n, holder));
    expect(answer).toBeInstanceOf(NoValue);
    expect((answer as NoValue).revertData).toBeUndefined();
    const err = await readView(provider, ownerOf(1n, holder)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({
      upstreamCode: 'BAD_DATA',
      message: expect.stringContaining(`owner of token 1: undecodable answer from ${holder}`),
    });
  });

  it('a node that does not answer is an UpstreamError, never a contract answer', async () => {
    const stopped = await startAnvil({ chainId: 11155111 });
    await stopped.stop();
    const dead = createProvider({ ...config, rpcUrl: stopped.rpcUrl });
    try {
      const err = await callView(dead, ownerOf(1n)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).message).toMatch(/^owner of token 1: /);
    } finally {
      dead.destroy();
    }
  });

  it('every read asks the node, identical reads in flight too (readiness probes rely on it)', async () => {
    const calls: RpcCall[] = [];
    const observed = createProvider(config);
    observeRpcCalls(observed, (call) => calls.push(call));
    try {
      const answers = await Promise.all([callView(observed, ownerOf(1n)), callView(observed, ownerOf(1n))]);
      expect(answers).toEqual([[holder], [holder]]);
    } finally {
      observed.destroy();
    }
    expect(calls.filter((call) => call.method === 'eth_call')).toHaveLength(2);
  });
});

describe('createNetworkProviders', () => {
  it('builds one provider per network with its config and metrics hook, destroyed on shutdown', async () => {
    const anvil = await startAnvil({ chainId: 11155111 });
    const networks = networksFromEnv(networksEnvSchema.parse({ SEPOLIA_RPC_URL: anvil.rpcUrl }));
    const observed: Array<{ network: NetworkName; method: string; outcome: string }> = [];
    const shutdown: Array<() => Promise<void>> = [];
    try {
      const providers = createNetworkProviders(
        networks,
        (network) => (call) => observed.push({ network, method: call.method, outcome: call.outcome }),
        shutdown,
      );
      expect(providers.mainnet.config).toBe(networks.mainnet);
      expect(providers.sepolia.config).toBe(networks.sepolia);
      await providers.sepolia.getBlockNumber();
      expect(observed).toEqual([{ network: 'sepolia', method: 'eth_blockNumber', outcome: 'ok' }]);
      expect(shutdown).toHaveLength(1);
      for (const step of shutdown) await step();
      expect(providers.mainnet.destroyed).toBe(true);
      expect(providers.sepolia.destroyed).toBe(true);
    } finally {
      await anvil.stop();
    }
  });
});
