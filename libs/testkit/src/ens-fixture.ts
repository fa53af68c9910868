import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addresses as ensjsAddresses } from '@ensdomains/ensjs/contracts';
import { sepolia } from 'viem/chains';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  NonceManager,
  Wallet,
  ZeroAddress,
  getAddress,
  type InterfaceAbi,
  type Provider,
  type TransactionReceipt,
} from 'ethers';
import {
  DEFAULT_EVM_COIN_TYPE,
  ETH_COIN_TYPE,
  chainByName,
  dnsEncode,
  labelhash,
  namehash,
  type Hex,
} from '@nrp/ens';
import {
  erc1271WalletTestDoubleArtifact,
  multicall3Artifact,
  nameWrapperTestDoubleArtifact,
  reverseNameRegistrarArtifact,
  signedOffchainResolverArtifact,
  universalResolverArtifact,
  type ContractArtifact,
} from '@nrp/contracts';
import { anvilAccounts, startAnvil, type AnvilAccount, type AnvilNode, type AnvilOptions } from './anvil';
import type { NetworkConfig } from '@nrp/chain';

interface NpmArtifact {
  contractName: string;
  abi: InterfaceAbi;
  bytecode: string;
}

function npmArtifact(file: string): ContractArtifact {
  // The ENS npm packages ship truffle build JSON (abi + bytecode); load lazily, they are large.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const json = require(file) as NpmArtifact;
  return { contractName: json.contractName, abi: json.abi, bytecode: json.bytecode };
}

/** The real ENS artifacts from npm (registry and reverse registrar from @ensdomains/ens, and so on). */
export const ensNpmArtifacts = {
  get ensRegistry(): ContractArtifact {
    return npmArtifact('@ensdomains/ens/build/contracts/ENSRegistry.json');
  },
  get reverseRegistrar(): ContractArtifact {
    return npmArtifact('@ensdomains/ens/build/contracts/ReverseRegistrar.json');
  },
  get publicResolver(): ContractArtifact {
    return npmArtifact('@ensdomains/resolver/build/contracts/PublicResolver.json');
  },
  get baseRegistrar(): ContractArtifact {
    return npmArtifact('@ensdomains/ethregistrar/build/contracts/BaseRegistrarImplementation.json');
  },
  get offchainResolver(): ContractArtifact {
    return npmArtifact(
      '@ensdomains/offchain-resolver-contracts/artifacts/contracts/OffchainResolver.sol/OffchainResolver.json',
    );
  },
};

/** ENSIP-11 coin type of Base (0x80002105), the chain whose ENSIP-19 primary names the local chain carries. */
export const BASE_COIN_TYPE = chainByName('base')?.coinType ?? 0x80002105;

/**
 * What the local chain's universal resolver sends offchain lookups to: the client's own ENSIP-21 batch gateway
 * (viem, ensjs and @nrp/chain all run one), so the chain depends on no hosted gateway.
 */
export const LOCAL_BATCH_GATEWAY = 'x-batch-gateway:true';

/**
 * Where Sepolia's ENS contracts are as clients know them: ensjs's Sepolia table, and viem's `sepolia.contracts` for
 * the Universal Resolver and Multicall3. The fixture places its contracts there (all but the Base reverse registrar,
 * which has no address on Sepolia's L1), so viem's `sepolia`, ensjs's `addEnsContracts(sepolia)` and ethers' built-in
 * sepolia network (registry 0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e) read the local chain as they are.
 */
export const SEPOLIA_ENS_ADDRESSES = (() => {
  const ensjs = ensjsAddresses[sepolia.id];
  return {
    ensRegistry: getAddress(ensjs.ensRegistry.address),
    publicResolver: getAddress(ensjs.ensPublicResolver.address),
    reverseRegistrar: getAddress(ensjs.ensReverseRegistrar.address),
    defaultReverseRegistrar: getAddress(ensjs.ensDefaultReverseRegistrar.address),
    baseRegistrar: getAddress(ensjs.ensBaseRegistrarImplementation.address),
    nameWrapper: getAddress(ensjs.ensNameWrapper.address),
    universalResolver: getAddress(sepolia.contracts.ensUniversalResolver.address),
    multicall3: getAddress(sepolia.contracts.multicall3.address),
  };
})();

/** Addresses of an ENS deployment on the local chain. */
export interface EnsDeployment {
  ensRegistry: string;
  publicResolver: string;
  /** `addr.reverse` (coin type 60): ENS's ReverseRegistrar from npm. */
  reverseRegistrar: string;
  /** `default.reverse` (ENSIP-19 default EVM coin type). */
  defaultReverseRegistrar: string;
  /** `80002105.reverse` (Base), falling back to the default registrar. */
  baseReverseRegistrar: string;
  baseRegistrar: string;
  nameWrapper: string;
  universalResolver: string;
  /** Multicall3 at its canonical address. */
  multicall3: string;
}

export class EnsFixtureError extends Error {
  override name = 'EnsFixtureError';
}

const PRIVATE_KEY_RE = /^0x[0-9a-fA-F]{64}$/;
const ONE_YEAR = 365 * 24 * 3600;
/** A transaction not mined within this time fails loudly instead of hanging a test. */
const TX_TIMEOUT_MS = 20_000;

/**
 * Polls for the receipt of `hash`. Use it instead of `tx.wait()` against anvil's automine: ethers' wait may read
 * a block number cached from just before the mining block, then wait for a next block that never comes.
 */
export async function waitForReceipt(
  provider: Provider,
  hash: string,
  timeoutMs = TX_TIMEOUT_MS,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) return receipt;
    if (Date.now() > deadline)
      throw new EnsFixtureError(`transaction ${hash} not mined within ${timeoutMs}ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Deploys `artifact` and waits for the successful receipt of its creation. */
async function deployReceipt(
  signer: NonceManager,
  artifact: ContractArtifact,
  args: unknown[],
): Promise<{ hash: string; contractAddress: string }> {
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, signer);
  const deployed = await factory.deploy(...args);
  const tx = deployed.deploymentTransaction();
  if (!tx || !signer.provider)
    throw new EnsFixtureError(`deploying ${artifact.contractName}: no transaction`);
  const receipt = await waitForReceipt(signer.provider, tx.hash);
  const { contractAddress } = receipt;
  if (receipt.status !== 1 || !contractAddress)
    throw new EnsFixtureError(`deploying ${artifact.contractName} failed`);
  return { hash: receipt.hash, contractAddress };
}

async function deploy(
  signer: NonceManager,
  artifact: ContractArtifact,
  args: unknown[] = [],
): Promise<Contract> {
  const { contractAddress } = await deployReceipt(signer, artifact, args);
  return new Contract(contractAddress, artifact.abi, signer);
}

/** What anvil's `prestateTracer` in diff mode reports an account became. */
interface TracedAccount {
  code?: string;
  storage?: Record<string, string>;
}

/**
 * Deploys `artifact`, then moves it to `address`: its runtime code and every storage slot its constructor wrote
 * (from the creation's prestate diff trace), and clears the code where it was created. Immutables and storage are
 * what the constructor made of `args`, so they must already name the final addresses of its dependencies.
 */
async function deployAt(
  provider: JsonRpcProvider,
  signer: NonceManager,
  artifact: ContractArtifact,
  args: unknown[],
  address: string,
): Promise<Contract> {
  if ((await provider.getCode(address)) !== '0x')
    throw new EnsFixtureError(`${address} already has code: deploy ENS once per chain`);
  const receipt = await deployReceipt(signer, artifact, args);
  const trace = (await provider.send('debug_traceTransaction', [
    receipt.hash,
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
  ])) as { post: Record<string, TracedAccount> };
  const created = trace.post[receipt.contractAddress.toLowerCase()];
  if (!created?.code) throw new EnsFixtureError(`deploying ${artifact.contractName}: no code in the trace`);
  await provider.send('anvil_setCode', [address, created.code]);
  for (const [slot, value] of Object.entries(created.storage ?? {}))
    await provider.send('anvil_setStorageAt', [address, slot, value]);
  await provider.send('anvil_setCode', [receipt.contractAddress, '0x']);
  return new Contract(address, artifact.abi, signer);
}

/**
 * ENS on a local chain, with helpers that sign as the right account. Accounts are anvil's well-known ones
 * plus any key given to `signerFor`; methods taking an `owner`/`account` address sign with its known key.
 */
export class EnsFixture {
  readonly provider: JsonRpcProvider;
  readonly addresses: EnsDeployment;
  readonly deployer: NonceManager;
  private readonly signers = new Map<string, NonceManager>();

  private constructor(
    provider: JsonRpcProvider,
    deployer: NonceManager,
    deployerAddress: string,
    addresses: EnsDeployment,
  ) {
    this.provider = provider;
    this.deployer = deployer;
    this.addresses = addresses;
    this.signers.set(deployerAddress.toLowerCase(), deployer);
  }

  /**
   * Deploys the ENS contracts at Sepolia's addresses ({@link SEPOLIA_ENS_ADDRESSES}) and wires `eth`
   * (BaseRegistrar, deployer as controller) and the reverse namespaces.
   */
  static async deploy(rpcUrl: string, deployerKey: string): Promise<EnsFixture> {
    const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
    try {
      return await EnsFixture.deployOn(provider, deployerKey);
    } catch (err) {
      provider.destroy();
      throw err;
    }
  }

  /** The fixture of ENS already deployed at `addresses` by `deployerKey`. */
  static at(rpcUrl: string, deployerKey: string, addresses: EnsDeployment): EnsFixture {
    const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
    const deployerWallet = new Wallet(deployerKey, provider);
    return new EnsFixture(provider, new NonceManager(deployerWallet), deployerWallet.address, addresses);
  }

  private static async deployOn(provider: JsonRpcProvider, deployerKey: string): Promise<EnsFixture> {
    const deployerWallet = new Wallet(deployerKey, provider);
    const deployer = new NonceManager(deployerWallet);
    const at = SEPOLIA_ENS_ADDRESSES;
    // Sequential on purpose: with automine, a transaction that reaches anvil before its predecessor nonce can
    // stay pending until the next transaction arrives, so concurrent sends may never be mined. The registry goes
    // first: the ReverseRegistrar's constructor reads it.
    const registry = await deployAt(provider, deployer, ensNpmArtifacts.ensRegistry, [], at.ensRegistry);
    await deployAt(provider, deployer, ensNpmArtifacts.publicResolver, [at.ensRegistry], at.publicResolver);
    const baseRegistrar = await deployAt(
      provider,
      deployer,
      ensNpmArtifacts.baseRegistrar,
      [at.ensRegistry, namehash('eth')],
      at.baseRegistrar,
    );
    await deployAt(provider, deployer, nameWrapperTestDoubleArtifact, [at.ensRegistry], at.nameWrapper);
    await deployAt(
      provider,
      deployer,
      universalResolverArtifact,
      [at.ensRegistry, [LOCAL_BATCH_GATEWAY]],
      at.universalResolver,
    );
    await deployAt(
      provider,
      deployer,
      ensNpmArtifacts.reverseRegistrar,
      [at.ensRegistry, at.publicResolver],
      at.reverseRegistrar,
    );
    await deployAt(
      provider,
      deployer,
      reverseNameRegistrarArtifact,
      [DEFAULT_EVM_COIN_TYPE, ZeroAddress],
      at.defaultReverseRegistrar,
    );
    const baseReverseRegistrar = await deploy(deployer, reverseNameRegistrarArtifact, [
      BASE_COIN_TYPE,
      at.defaultReverseRegistrar,
    ]);
    await deployAt(provider, deployer, multicall3Artifact, [], at.multicall3);
    const addresses: EnsDeployment = { ...at, baseReverseRegistrar: await baseReverseRegistrar.getAddress() };
    const fixture = new EnsFixture(provider, deployer, deployerWallet.address, addresses);
    const root = '0x' + '00'.repeat(32);
    const owner = deployerWallet.address;
    await fixture.send(registry, deployer, 'setSubnodeOwner', [root, labelhash('reverse'), owner]);
    await fixture.send(registry, deployer, 'setSubnodeOwner', [
      namehash('reverse'),
      labelhash('addr'),
      addresses.reverseRegistrar,
    ]);
    for (const [label, resolver] of [
      ['default', addresses.defaultReverseRegistrar],
      [BASE_COIN_TYPE.toString(16), addresses.baseReverseRegistrar],
    ] as const) {
      await fixture.send(registry, deployer, 'setSubnodeRecord', [
        namehash('reverse'),
        labelhash(label),
        owner,
        resolver,
        0,
      ]);
    }
    await fixture.send(registry, deployer, 'setSubnodeOwner', [
      root,
      labelhash('eth'),
      addresses.baseRegistrar,
    ]);
    await fixture.send(baseRegistrar, deployer, 'addController', [owner]);
    return fixture;
  }

  /** Contract bound to the fixture's deployer. */
  contract(name: keyof EnsDeployment): Contract {
    const artifacts: Record<keyof EnsDeployment, () => ContractArtifact> = {
      ensRegistry: () => ensNpmArtifacts.ensRegistry,
      publicResolver: () => ensNpmArtifacts.publicResolver,
      reverseRegistrar: () => ensNpmArtifacts.reverseRegistrar,
      baseRegistrar: () => ensNpmArtifacts.baseRegistrar,
      nameWrapper: () => nameWrapperTestDoubleArtifact,
      universalResolver: () => universalResolverArtifact,
      defaultReverseRegistrar: () => reverseNameRegistrarArtifact,
      baseReverseRegistrar: () => reverseNameRegistrarArtifact,
      multicall3: () => multicall3Artifact,
    };
    return new Contract(this.addresses[name], artifacts[name]().abi, this.deployer);
  }

  /** A nonce-managed signer for `privateKey` (cached), registered so later calls can sign as its address. */
  signerFor(privateKey: string): NonceManager {
    const wallet = new Wallet(privateKey, this.provider);
    const key = wallet.address.toLowerCase();
    let signer = this.signers.get(key);
    if (!signer) {
      signer = new NonceManager(wallet);
      this.signers.set(key, signer);
    }
    return signer;
  }

  /** The signer of a known address (anvil account or one given to signerFor), or of a private key. */
  signerOf(addressOrKey: string): NonceManager {
    if (PRIVATE_KEY_RE.test(addressOrKey)) return this.signerFor(addressOrKey);
    const key = addressOrKey.toLowerCase();
    const known = this.signers.get(key);
    if (known) return known;
    const account = anvilAccounts().find((a) => a.address.toLowerCase() === key);
    if (!account)
      throw new EnsFixtureError(`no private key known for ${addressOrKey}; pass it to signerFor first`);
    return this.signerFor(account.privateKey);
  }

  /** Sends `fn(args)` on `contract` as `signer` and waits for a successful receipt. */
  async send(
    contract: Contract,
    signer: NonceManager,
    fn: string,
    args: unknown[],
  ): Promise<TransactionReceipt> {
    const bound = contract.connect(signer) as Contract;
    try {
      const tx = await bound.getFunction(fn).send(...args);
      const receipt = await waitForReceipt(this.provider, tx.hash);
      if (receipt.status !== 1) throw new EnsFixtureError(`${fn} failed (status ${receipt.status})`);
      return receipt;
    } catch (err) {
      signer.reset();
      if (err instanceof EnsFixtureError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new EnsFixtureError(`${fn}(${args.map(String).join(', ')}) failed: ${message}`, { cause: err });
    }
  }

  async registryOwner(name: string): Promise<string> {
    return getAddress(
      String(await this.contract('ensRegistry').getFunction('owner').staticCall(namehash(name))),
    );
  }

  async resolverOf(name: string): Promise<string> {
    return getAddress(
      String(await this.contract('ensRegistry').getFunction('resolver').staticCall(namehash(name))),
    );
  }

  /** Owner that can manage `name`: the NameWrapper token owner for wrapped names, else the registry owner. */
  async effectiveOwner(name: string): Promise<string> {
    const owner = await this.registryOwner(name);
    if (owner !== getAddress(this.addresses.nameWrapper)) return owner;
    const tokenOwner = await this.contract('nameWrapper')
      .getFunction('ownerOf')
      .staticCall(BigInt(namehash(name)));
    return getAddress(String(tokenOwner));
  }

  /**
   * Registers `<label>.eth` to `owner` through the BaseRegistrar (the deployer is a controller), then sets
   * its resolver (default: the public resolver; null: none).
   */
  async registerEthName(
    label: string,
    owner: string,
    opts: { durationSeconds?: number; resolver?: string | null } = {},
  ): Promise<{ name: string; node: Hex; tokenId: bigint }> {
    const tokenId = BigInt(labelhash(label));
    await this.send(this.contract('baseRegistrar'), this.deployer, 'register', [
      tokenId,
      owner,
      opts.durationSeconds ?? ONE_YEAR,
    ]);
    const name = `${label}.eth`;
    const resolver = opts.resolver === undefined ? this.addresses.publicResolver : opts.resolver;
    if (resolver !== null) await this.setResolver(name, resolver);
    return { name, node: namehash(name), tokenId };
  }

  /**
   * Creates `<label>.<parentName>` owned by `owner` through the registry, signed by the parent's registry owner
   * (or through the NameWrapper double when the parent is wrapped). Resolver default: the public resolver;
   * null: none.
   */
  async createSubname(
    parentName: string,
    label: string,
    owner: string,
    opts: { resolver?: string | null } = {},
  ): Promise<{ name: string; node: Hex }> {
    const resolver =
      opts.resolver === undefined ? this.addresses.publicResolver : (opts.resolver ?? ZeroAddress);
    const parentOwner = await this.registryOwner(parentName);
    if (parentOwner === getAddress(this.addresses.nameWrapper)) {
      const tokenOwner = await this.effectiveOwner(parentName);
      await this.send(this.contract('nameWrapper'), this.signerOf(tokenOwner), 'setSubnodeRecord', [
        namehash(parentName),
        label,
        owner,
        resolver,
        0,
        0,
        0,
      ]);
    } else {
      await this.send(this.contract('ensRegistry'), this.signerOf(parentOwner), 'setSubnodeRecord', [
        namehash(parentName),
        labelhash(label),
        owner,
        resolver,
        0,
      ]);
    }
    const name = `${label}.${parentName}`;
    return { name, node: namehash(name) };
  }

  /** Wraps `name` into the NameWrapper double for `owner`, signed by the current registry owner. */
  async wrapName(name: string, owner: string): Promise<{ tokenId: bigint }> {
    const registryOwner = await this.registryOwner(name);
    const signer = this.signerOf(registryOwner);
    await this.send(this.contract('ensRegistry'), signer, 'setApprovalForAll', [
      this.addresses.nameWrapper,
      true,
    ]);
    await this.send(this.contract('nameWrapper'), signer, 'wrap', [dnsEncode(name), owner, ZeroAddress]);
    return { tokenId: BigInt(namehash(name)) };
  }

  /** Sets the resolver of `name`, signed by its owner (through the NameWrapper double if wrapped). */
  async setResolver(name: string, resolver: string): Promise<void> {
    const registryOwner = await this.registryOwner(name);
    if (registryOwner === getAddress(this.addresses.nameWrapper)) {
      const owner = await this.effectiveOwner(name);
      await this.send(this.contract('nameWrapper'), this.signerOf(owner), 'setResolver', [
        namehash(name),
        resolver,
      ]);
      return;
    }
    await this.send(this.contract('ensRegistry'), this.signerOf(registryOwner), 'setResolver', [
      namehash(name),
      resolver,
    ]);
  }

  private async resolverCall(name: string, fn: string, args: unknown[]): Promise<void> {
    const resolver = await this.resolverOf(name);
    if (resolver === ZeroAddress) throw new EnsFixtureError(`${name} has no resolver`);
    const contract = new Contract(resolver, ensNpmArtifacts.publicResolver.abi, this.provider);
    const signer = this.signerOf(await this.effectiveOwner(name));
    await this.send(contract, signer, fn, [namehash(name), ...args]);
  }

  setText(name: string, key: string, value: string): Promise<void> {
    return this.resolverCall(name, 'setText', [key, value]);
  }

  setAddr(name: string, address: string): Promise<void> {
    return this.resolverCall(name, 'setAddr(bytes32,address)', [address]);
  }

  setAddrForCoin(name: string, coinType: number | bigint, value: string): Promise<void> {
    return this.resolverCall(name, 'setAddr(bytes32,uint256,bytes)', [coinType, value]);
  }

  setContenthash(name: string, value: string): Promise<void> {
    return this.resolverCall(name, 'setContenthash', [value]);
  }

  /**
   * Sets the primary name of `account` (address or private key) for `coinType`: 60 through ENS's
   * ReverseRegistrar.setName (`addr.reverse`), the ENSIP-19 default EVM coin type and Base through their
   * reverse registrars.
   */
  async setReverseName(account: string, name: string, coinType: number = ETH_COIN_TYPE): Promise<void> {
    const registrars: Record<number, keyof EnsDeployment> = {
      [ETH_COIN_TYPE]: 'reverseRegistrar',
      [DEFAULT_EVM_COIN_TYPE]: 'defaultReverseRegistrar',
      [BASE_COIN_TYPE]: 'baseReverseRegistrar',
    };
    const registrar = registrars[coinType];
    if (!registrar) throw new EnsFixtureError(`no reverse registrar for coin type ${coinType} on this chain`);
    await this.send(this.contract(registrar), this.signerOf(account), 'setName', [name]);
  }

  /**
   * Deploys our SignedOffchainResolver (ENSIP-10, EIP-3668 signed answers, ENSIP-22 multicall) with a gateway URL
   * template and trusted signers.
   */
  async deployOffchainResolver(url: string, signers: string[]): Promise<string> {
    const resolver = await deploy(this.deployer, signedOffchainResolverArtifact, [url, signers]);
    return resolver.getAddress();
  }

  /** Deploys ENS's own OffchainResolver (npm artifact, no ENSIP-22): the universal resolver batches its lookups. */
  async deployEnsOffchainResolver(url: string, signers: string[]): Promise<string> {
    const resolver = await deploy(this.deployer, ensNpmArtifacts.offchainResolver, [url, signers]);
    return resolver.getAddress();
  }

  /** Deploys the ERC-1271 wallet double owned by `owner`. */
  async deployErc1271Wallet(owner: string): Promise<string> {
    const wallet = await deploy(this.deployer, erc1271WalletTestDoubleArtifact, [owner]);
    return wallet.getAddress();
  }

  destroy(): void {
    this.provider.destroy();
  }
}

/**
 * Deployments kept on this machine: anvil's state right after {@link EnsFixture.deploy} on a new chain, under a key
 * of everything that deployment depends on. The same deployment on another new chain loads it (~40 ms) instead of
 * sending its 16 transactions, traces and code moves again (~1.5 s).
 */
const DEPLOYMENT_CACHE_DIR = path.join(tmpdir(), 'nrp-ens-deployments');

interface CachedDeployment {
  /** `anvil_dumpState` right after the deployment. */
  state: string;
  addresses: EnsDeployment;
}

let deploymentInputs: string | undefined;

/** What anvil says of itself (`anvil_nodeInfo`). */
interface AnvilNodeInfo {
  currentBlockNumber: string;
  hardFork: string;
  transactionOrder: string;
  /** Chain id, gas limit and prices. */
  environment: unknown;
  forkConfig: unknown;
}

/** The cache file of a deployment by `deployer` onto the chain `provider` reaches, if that chain is new (block 0). */
async function deploymentCacheFile(provider: JsonRpcProvider, deployer: string): Promise<string | undefined> {
  const [info, client] = (await Promise.all([
    provider.send('anvil_nodeInfo', []),
    provider.send('web3_clientVersion', []),
  ])) as [AnvilNodeInfo, string];
  if (BigInt(info.currentBlockNumber) !== 0n) return undefined;
  const { hardFork, transactionOrder, environment, forkConfig } = info;
  deploymentInputs ??= JSON.stringify({
    // This file's own text: every change to how it deploys makes a new key.
    fixture: readFileSync(__filename, 'utf8'),
    artifacts: [
      ensNpmArtifacts.ensRegistry,
      ensNpmArtifacts.publicResolver,
      ensNpmArtifacts.baseRegistrar,
      ensNpmArtifacts.reverseRegistrar,
      nameWrapperTestDoubleArtifact,
      universalResolverArtifact,
      reverseNameRegistrarArtifact,
      multicall3Artifact,
    ].map((artifact) => [artifact.abi, artifact.bytecode]),
    constants: [SEPOLIA_ENS_ADDRESSES, String(DEFAULT_EVM_COIN_TYPE), BASE_COIN_TYPE, LOCAL_BATCH_GATEWAY],
  });
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        deploymentInputs,
        deployer,
        client,
        hardFork,
        transactionOrder,
        environment,
        forkConfig,
      ]),
    )
    .digest('hex');
  return path.join(DEPLOYMENT_CACHE_DIR, `${key}.json`);
}

function readCachedDeployment(file: string): CachedDeployment | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CachedDeployment;
  } catch {
    return undefined; // not kept yet (or cut short): deploy, and keep it
  }
}

function keepDeployment(file: string, deployment: CachedDeployment): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Written aside, then renamed: a reader sees the whole file or none.
  const partial = `${file}.${process.pid}.${Date.now()}`;
  writeFileSync(partial, JSON.stringify(deployment));
  renameSync(partial, file);
}

/**
 * Deploys ENS (real npm artifacts + our implementations of what npm lacks) on the chain at `rpcUrl`. On a new chain
 * it loads the same deployment kept on this machine when there is one (the state is the same, only the past blocks'
 * times differ), and keeps it otherwise.
 */
export async function deployEns(rpcUrl: string, deployerKey: string): Promise<EnsFixture> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const file = await deploymentCacheFile(provider, new Wallet(deployerKey).address);
    const cached = file && readCachedDeployment(file);
    if (cached) {
      await provider.send('anvil_loadState', [cached.state]);
      return EnsFixture.at(rpcUrl, deployerKey, cached.addresses);
    }
    const fixture = await EnsFixture.deploy(rpcUrl, deployerKey);
    if (file)
      keepDeployment(file, {
        state: await provider.send('anvil_dumpState', []),
        addresses: fixture.addresses,
      });
    return fixture;
  } finally {
    provider.destroy();
  }
}

/**
 * The `NetworkConfig` (`@nrp/chain`) of a local ENS chain, served as sepolia: its RPC URL and ENS contracts, the
 * local batch gateway, and the CCIP-Read origins the test serves on loopback.
 */
export function localNetworkConfig(
  chain: EnsChain,
  opts: { ccipReadAllowedOrigins?: string[]; rpcTimeoutMs?: number } = {},
): NetworkConfig {
  const c = chain.contracts;
  return {
    name: 'sepolia',
    chainId: chain.anvil.chainId,
    rpcUrl: chain.anvil.rpcUrl,
    rpcTimeoutMs: opts.rpcTimeoutMs ?? 5000,
    ens: {
      ensRegistry: c.ensRegistry,
      nameWrapper: c.nameWrapper,
      publicResolver: c.publicResolver,
      reverseRegistrar: c.reverseRegistrar,
      universalResolver: c.universalResolver,
    },
    ccipReadAllowedOrigins: opts.ccipReadAllowedOrigins ?? [],
    batchGatewayUrls: [LOCAL_BATCH_GATEWAY],
  };
}

export interface EnsChain {
  anvil: AnvilNode;
  ens: EnsFixture;
  contracts: EnsDeployment;
  accounts: AnvilAccount[];
  stop(): Promise<void>;
}

/** startAnvil + deployEns (deployer: anvil account 0) in one call, for tests. */
export async function startEnsChain(opts: AnvilOptions = {}): Promise<EnsChain> {
  const anvil = await startAnvil(opts);
  try {
    const deployer = anvil.accounts[0];
    if (!deployer) throw new EnsFixtureError('anvil has no accounts');
    const ens = await deployEns(anvil.rpcUrl, deployer.privateKey);
    return {
      anvil,
      ens,
      contracts: ens.addresses,
      accounts: anvil.accounts,
      stop: async () => {
        ens.destroy();
        await anvil.stop();
      },
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/**
 * `MAINNET_*` variables naming the test chain and its ENS contracts, for tests whose requests may choose mainnet
 * (generated input): the service then answers from the test chain instead of trying a public node.
 */
export function mainnetOnTestChain(chain: EnsChain): Record<string, string> {
  const c = chain.contracts;
  return {
    MAINNET_RPC_URL: chain.anvil.rpcUrl,
    MAINNET_ENS_REGISTRY: c.ensRegistry,
    MAINNET_NAME_WRAPPER: c.nameWrapper,
    MAINNET_PUBLIC_RESOLVER: c.publicResolver,
    MAINNET_REVERSE_REGISTRAR: c.reverseRegistrar,
    MAINNET_UNIVERSAL_RESOLVER: c.universalResolver,
  };
}
