/**
 * Subnames on the L2 of `npm start`, as a frontend uses them: mint `carol.l2.eth` on Base Sepolia with viem from the
 * parameters mint-svc signs, then viem, ensjs and ethers, unchanged and pointed only at the L1 RPC, resolve it
 * through the parent's L2NameResolver and offchain-svc's L2 gateway; resolver-svc and metadata-svc answer the same;
 * a transfer of the L2 token hands the right to set its records to the new holder. Under `proven.eth` the same mint
 * resolves through ProvenL2Resolver's storage proofs once the dev rollup posts the next root.
 */
import { addEnsContracts, createEnsPublicClient } from '@ensdomains/ensjs';
import { getRecords } from '@ensdomains/ensjs/public';
import { JsonRpcProvider } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  parseAbi,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import { l2MintControllerArtifact } from '@nrp/contracts';
import { namehash } from '@nrp/ens';
import {
  BASE_COIN_TYPE,
  startDevStackProcess,
  until,
  type DevStackFile,
  type DevStackProcess,
} from '@nrp/testkit';

const NAME = 'carol.l2.eth';
const NODE = namehash(NAME) as Hex;
const registryAbi = parseAbi([
  'function setText(bytes32 node, string key, string value)',
  'function setAddr(bytes32 node, address a)',
  'function setAddr(bytes32 node, uint256 coinType, bytes value)',
  'function text(bytes32 node, string key) view returns (string)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function transferFrom(address from, address to, uint256 tokenId)',
  'error NotAuthorised(bytes32 node, address caller)',
]);

interface MintAnswer {
  content: {
    label: string;
    owner: Address;
    fee: string;
    price: string;
    parentNode: Hex;
    paymentReceiver: Address;
    verifiedMinter: Address;
    signatureExpiry: number;
    expiry: number;
    fuses: number;
  };
  signature: Hex;
  mintController: Address;
  chainId: number;
}

describe('subnames on the L2 of npm start', () => {
  let devStack: DevStackProcess;
  let stack: DevStackFile;
  let l1: PublicClient;
  let l2: PublicClient;
  const rpc = (network: 'sepolia' | 'base-sepolia') => http(stack.chains[network].rpcUrl);

  const account = (index: number) => {
    const key = stack.accounts[index]?.privateKey;
    if (!key) throw new Error(`no anvil account ${index}`);
    return privateKeyToAccount(key);
  };
  const l2Wallet = (index: number) =>
    createWalletClient({ account: account(index), transport: rpc('base-sepolia') });
  const serviceJson = async (url: string, init?: RequestInit): Promise<Record<string, unknown>> => {
    const res = await fetch(url, init);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const registry = () => stack.contracts.l2Registry as Address;
  const namesOf = async (owner: Address): Promise<string[]> => {
    const page = await serviceJson(`${stack.services.mint}/api/v1/names?network=base-sepolia&owner=${owner}`);
    return (page.items as Array<{ name: string }>).map((item) => item.name);
  };

  /** Sends `functionName(args)` on the L2 from anvil account `index` (simulated first: a revert throws its error). */
  async function sendOnL2(
    index: number,
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value = 0n,
  ): Promise<void> {
    const { request } = await l2.simulateContract({
      account: account(index),
      address,
      abi,
      functionName,
      args,
      value,
    });
    const hash = await l2Wallet(index).writeContract({ ...request, chain: null });
    const receipt = await l2.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
  }

  beforeAll(async () => {
    devStack = await startDevStackProcess();
    stack = devStack.stack;
    l1 = createPublicClient({ chain: sepolia, transport: rpc('sepolia') });
    l2 = createPublicClient({ transport: rpc('base-sepolia') });
  }, 210_000);

  afterAll(async () => {
    await devStack?.stop();
  });

  it('lists l2.eth for minting on base-sepolia as an L2 listing', async () => {
    const listing = await serviceJson(`${stack.services.mint}/api/v1/listings/base-sepolia/l2.eth`);
    expect(listing).toMatchObject({
      network: 'base-sepolia',
      parentName: 'l2.eth',
      type: 'L2',
      l2Metadata: {
        registryNetwork: 'base-sepolia',
        chainId: 84532,
        registryAddress: registry(),
        mintController: stack.contracts.l2MintController,
      },
    });
  });

  /**
   * Mints `label.parentName` on the L2 with viem from the parameters mint-svc signs, sent from anvil account
   * `index` with its address (ETH and Base) and `description` as records; returns the mint answer.
   */
  async function mintOnL2(parentName: string, label: string, index: number, description: string) {
    const minter = account(index);
    const node = namehash(`${label}.${parentName}`) as Hex;
    const mint = (await serviceJson(`${stack.services.mint}/api/v1/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parentName, label, minterAddress: minter.address, network: 'base-sepolia' }),
    })) as unknown as MintAnswer;
    const records = [
      encodeFunctionData({ abi: registryAbi, functionName: 'setAddr', args: [node, minter.address] }),
      encodeFunctionData({
        abi: registryAbi,
        functionName: 'setAddr',
        args: [node, BigInt(BASE_COIN_TYPE), minter.address.toLowerCase() as Hex],
      }),
      encodeFunctionData({
        abi: registryAbi,
        functionName: 'setText',
        args: [node, 'description', description],
      }),
    ];
    const { content } = mint;
    await sendOnL2(
      index,
      mint.mintController,
      l2MintControllerArtifact.abi as Abi,
      'mint',
      [
        {
          ...content,
          price: BigInt(content.price),
          fee: BigInt(content.fee),
          signatureExpiry: BigInt(content.signatureExpiry),
          expiry: BigInt(content.expiry),
        },
        mint.signature,
        records,
        '0x',
      ],
      BigInt(content.price) + BigInt(content.fee),
    );
    return mint;
  }

  it('mints carol.l2.eth on the L2 with viem from the parameters mint-svc signs, records included', async () => {
    const carol = account(3);
    const mint = await mintOnL2('l2.eth', 'carol', 3, 'Carol on Base');
    expect(mint.chainId).toBe(84532);
    expect(mint.mintController).toBe(stack.contracts.l2MintController);
    expect(
      await l2.readContract({
        address: registry(),
        abi: registryAbi,
        functionName: 'ownerOf',
        args: [BigInt(NODE)],
      }),
    ).toBe(carol.address);
  }, 60_000);

  it('viem, ensjs and ethers resolve it from the L1 RPC alone, as resolver-svc does', async () => {
    const carol = account(3).address;
    expect(await getEnsAddress(l1, { name: NAME })).toBe(carol);
    expect(await getEnsText(l1, { name: NAME, key: 'description' })).toBe('Carol on Base');
    expect((await getEnsAddress(l1, { name: NAME, coinType: BigInt(BASE_COIN_TYPE) }))?.toLowerCase()).toBe(
      carol.toLowerCase(),
    );
    const ensjs = createEnsPublicClient({
      chain: addEnsContracts(sepolia),
      transport: http(stack.chains.sepolia.rpcUrl),
    });
    const records = await getRecords(ensjs, { name: NAME, texts: ['description'], coins: ['eth', 'base'] });
    expect(records.texts).toEqual([{ key: 'description', value: 'Carol on Base' }]);
    expect(records.coins.map((c) => [c.name, c.value.toLowerCase()])).toEqual([
      ['eth', carol.toLowerCase()],
      ['base', carol.toLowerCase()],
    ]);
    expect(records.resolverAddress).toBe(stack.contracts.l2Resolver);
    const ethers = new JsonRpcProvider(stack.chains.sepolia.rpcUrl);
    try {
      expect(await ethers.resolveName(NAME)).toBe(carol);
      expect(await (await ethers.getResolver(NAME))?.getText('description')).toBe('Carol on Base');
    } finally {
      ethers.destroy();
    }
    const profile = await serviceJson(
      `${stack.services.resolver}/ens/v2/profile/${NAME}?texts=description&addresses=eth,base&noCache=true`,
    );
    expect(profile).toMatchObject({
      name: NAME,
      texts: [{ key: 'description', value: 'Carol on Base' }],
      resolver: stack.contracts.l2Resolver,
    });
    expect(profile.addresses).toEqual(
      expect.arrayContaining([expect.objectContaining({ chain: 'eth', value: carol })]),
    );
  }, 60_000);

  it('the names index lists it for its holder on base-sepolia', async () => {
    await until(
      async () => (await namesOf(account(3).address)).includes(NAME),
      'carol.l2.eth in the names index',
      20_000,
    );
  });

  it('metadata-svc serves the L2 token', async () => {
    const metadata = await serviceJson(
      `${stack.services.metadata}/base-sepolia/${registry()}/${BigInt(NODE)}`,
    );
    expect(metadata).toMatchObject({ name: NAME });
    const image = await fetch(String(metadata.image));
    expect(image.status).toBe(200);
  });

  it('a transfer of the token hands the right to set its records to the new holder', async () => {
    const carol = account(3);
    const dave = account(4);
    await sendOnL2(3, registry(), registryAbi, 'transferFrom', [carol.address, dave.address, BigInt(NODE)]);
    await expect(
      l2.simulateContract({
        address: registry(),
        abi: registryAbi,
        functionName: 'setText',
        args: [NODE, 'description', 'still Carol'],
        account: carol,
      }),
    ).rejects.toThrow(/NotAuthorised/);
    await sendOnL2(4, registry(), registryAbi, 'setText', [NODE, 'description', 'Dave on Base']);
    await until(async () => (await namesOf(dave.address)).includes(NAME), 'the transfer indexed', 20_000);
    expect(await namesOf(carol.address)).not.toContain(NAME);
    // The gateway keeps an L2 read for at most L2_ANSWER_CACHE_MS (2 s): the new record shows within that.
    await until(
      async () => (await getEnsText(l1, { name: NAME, key: 'description' })) === 'Dave on Base',
      'the new holder’s record resolved from L1',
      10_000,
    );
  }, 60_000);

  it('proven.eth: a name minted on the L2 resolves from the L1 alone through storage proofs once a root is posted', async () => {
    const erin = account(5);
    const name = 'erin.proven.eth';
    const mint = await mintOnL2('proven.eth', 'erin', 5, 'Erin, proven');
    expect(mint.mintController).toBe(stack.contracts.provenL2MintController);
    // The proposer posts a root every 6 s and offchain-svc reads the latest one every second.
    await until(
      async () => (await getEnsText(l1, { name, key: 'description' })) === 'Erin, proven',
      'erin.proven.eth resolved through proofs',
      120_000,
    );
    expect(await getEnsAddress(l1, { name })).toBe(erin.address);
    const ensjs = createEnsPublicClient({
      chain: addEnsContracts(sepolia),
      transport: http(stack.chains.sepolia.rpcUrl),
    });
    const records = await getRecords(ensjs, { name, texts: ['description'], coins: ['eth', 'base'] });
    expect(records.resolverAddress).toBe(stack.contracts.provenL2Resolver);
    expect(records.coins.map((c) => [c.name, c.value.toLowerCase()])).toEqual([
      ['eth', erin.address.toLowerCase()],
      ['base', erin.address.toLowerCase()],
    ]);
    const ethers = new JsonRpcProvider(stack.chains.sepolia.rpcUrl);
    try {
      expect(await ethers.resolveName(name)).toBe(erin.address);
      expect(await ethers.resolveName(stack.names.provenL2Subname ?? '')).toBe(account(0).address);
    } finally {
      ethers.destroy();
    }
    const profile = await serviceJson(
      `${stack.services.resolver}/ens/v2/profile/${name}?texts=description&addresses=eth&noCache=true`,
    );
    expect(profile).toMatchObject({
      texts: [{ key: 'description', value: 'Erin, proven' }],
      resolver: stack.contracts.provenL2Resolver,
    });
  }, 180_000);
});
