/**
 * Proven L2 subnames end to end on two anvils: the L2 (Base Sepolia's chain id) carries the L2Registry of
 * `proven.eth`; the L1 (Sepolia as clients know it, with ENS and our UniversalResolver) carries the rollup's output
 * roots (the testkit's dev rollup: L2OutputOracle posted by a proposer, the Unruggable Gateways OPVerifier) and
 * ProvenL2Resolver. viem, ensjs and ethers, unchanged and given only the L1 RPC, resolve through a prover built on
 * the package's Gateway (in this process, then `npm run prover` as a second process); a prover that lies is refused
 * by the resolver's callback on L1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { addEnsContracts, createEnsPublicClient } from '@ensdomains/ensjs';
import { getRecords } from '@ensdomains/ensjs/public';
import {
  AbiCoder,
  JsonRpcProvider,
  ZeroHash,
  hexlify,
  isCallException,
  toUtf8Bytes,
  type Contract,
} from 'ethers';
import { EthProver } from '@unruggable/gateways';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  decodeErrorResult,
  encodeFunctionData,
  http,
  keccak256,
  parseAbi,
  stringToHex,
  toHex,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import {
  createL2Prover,
  parseL2ProofRequest,
  startL2ProverServer,
  type L2Prover,
  type L2ProofRequest,
  type L2ProverServer,
} from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import {
  BASE_COIN_TYPE,
  L2_CHAIN_ID,
  deployDevRollup,
  l2RegistryAbi,
  startEnsChain,
  startL2Chain,
  stopChild,
  type DevRollup,
  type EnsChain,
  type L2Chain,
} from '@nrp/testkit';
import { deployContract, provenL2ResolverArtifact } from '../src';

const PARENT = 'proven.eth';
const CAROL = `carol.${PARENT}`;
/** An IPFS CID as ENSIP-7 contenthash bytes: ensjs shows it as CIDv1, ethers as CIDv0. */
const CONTENTHASH = '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f';
const IPFS_CID_V1 = 'bafybeibj6lixxzqtsb45ysdjnupvqkufgdvzqbnvmhw2kf7cfkesy7r7d4';
const IPFS_CID_V0 = 'QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4';
/** Seconds of L1 time by which a prover's root may trail the latest posted one. */
const WINDOW_SECONDS = 30;
const WITNESS = ['tuple(uint256, tuple(bytes32, bytes32, bytes32, bytes32), bytes[], bytes)'];
const coder = AbiCoder.defaultAbiCoder();
const resolverAbi = provenL2ResolverArtifact.abi as Abi;
const lookupAbi = parseAbi([
  'error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData)',
  'function text(bytes32 node, string key) view returns (string)',
  'function resolve(bytes name, bytes data) view returns (bytes)',
  'function fetchCallback(bytes response, bytes carry) view returns (bytes)',
]);
const errorsAbi = parseAbi([
  'error CommitTooOld(uint256 latest, uint256 got, uint256 window)',
  'error CommitTooNew(uint256 latest, uint256 got)',
  'error OutputNotFound()',
  'error Error(string)',
]);

/** The prover the resolver's URL reaches: honest, unless a test makes it lie. */
type Lie = (request: L2ProofRequest) => Promise<string>;

describe('proven L2 subnames (ProvenL2Resolver + Unruggable Gateways)', () => {
  let l1: EnsChain;
  let l2: L2Chain;
  let rollup: DevRollup;
  let registry: Address;
  let otherRegistry: Address;
  let resolver: Address;
  let resolverContract: Contract;
  let carol: PrivateKeyAccount;
  let dave: PrivateKeyAccount;
  let l1Viem: PublicClient;
  let l2Provider: JsonRpcProvider;
  let l1Provider: JsonRpcProvider;
  let honest: L2Prover;
  let gateway: L2ProverServer;
  let lie: Lie | undefined;
  let requests = 0;

  const l2Send = (from: PrivateKeyAccount, functionName: string, args: readonly unknown[], to = registry) =>
    l2.send(from, to, l2RegistryAbi, functionName, args);

  async function registerWithRecords(
    to: Address,
    label: string,
    holder: PrivateKeyAccount,
    description: string,
  ) {
    const node = namehash(`${label}.${PARENT}`);
    await l2.register(to, label, holder.address, (await l2.now()) + 365n * 86400n);
    await l2Send(holder, 'setAddr', [node, holder.address], to);
    await l2Send(holder, 'setAddr', [node, BigInt(BASE_COIN_TYPE), holder.address], to);
    await l2Send(holder, 'setText', [node, 'description', description], to);
  }

  beforeAll(async () => {
    [l1, l2] = await Promise.all([startEnsChain(), startL2Chain()]);
    carol = l2.account(3);
    dave = l2.account(4);
    registry = await l2.deployRegistry(PARENT, { ownerIsController: true });
    otherRegistry = await l2.deployRegistry(PARENT, { ownerIsController: true });
    await registerWithRecords(registry, 'carol', carol, 'Proven profile');
    await l2Send(carol, 'setText', [namehash(CAROL), 'url', 'https://carol.example']);
    await l2Send(carol, 'setContenthash', [namehash(CAROL), CONTENTHASH]);
    // The same name on another registry, with another holder and records: what a lying prover would prove.
    await registerWithRecords(otherRegistry, 'carol', dave, 'Forged profile');

    const operator = l1.accounts[7];
    if (!operator) throw new Error('anvil accounts');
    rollup = await deployDevRollup({
      l1RpcUrl: l1.anvil.rpcUrl,
      l2RpcUrl: l2.anvil.rpcUrl,
      operatorKey: operator.privateKey,
      gatewayUrls: [],
      windowSeconds: WINDOW_SECONDS,
    });
    l1Provider = new JsonRpcProvider(l1.anvil.rpcUrl, undefined, { staticNetwork: true });
    l2Provider = new JsonRpcProvider(l2.anvil.rpcUrl, undefined, { staticNetwork: true });
    // No cache of the latest root: each lookup sees the root posted just before it.
    honest = createL2Prover({ l1: l1Provider, l2: l2Provider, rollup: rollup.proverRollup, commitPollMs: 0 });
    gateway = await startL2ProverServer(
      {
        prove: async (request) => {
          requests += 1;
          return (await (lie ?? honest.prove)(request)) as Hex;
        },
      },
      { host: '127.0.0.1', port: 0, onError: () => undefined },
    );
    const deployed = await deployContract(l1.ens.deployer, provenL2ResolverArtifact, [
      rollup.verifier,
      L2_CHAIN_ID,
      registry,
      [gateway.url],
    ]);
    resolverContract = deployed;
    resolver = (await deployed.getAddress()) as Address;
    const [deployer] = l1.accounts;
    if (!deployer) throw new Error('anvil accounts');
    await l1.ens.registerEthName('proven', deployer.address, { resolver });
    l1Viem = createPublicClient({ chain: sepolia, transport: http(l1.anvil.rpcUrl), pollingInterval: 20 });
    await rollup.propose();
  });

  afterAll(async () => {
    await gateway?.close();
    rollup?.stop();
    l1Provider?.destroy();
    l2Provider?.destroy();
    await Promise.all([l1?.stop(), l2?.stop()]);
  });

  afterEach(() => {
    lie = undefined;
  });

  describe('honest prover', () => {
    it('is an ENSIP-10 resolver with the ENSIP-22 multicall feature, naming its verifier and L2 registry', async () => {
      const read = (functionName: string, args: readonly unknown[] = []) =>
        l1Viem.readContract({ address: resolver, abi: resolverAbi, functionName, args });
      expect(await read('supportsInterface', ['0x9061b923'])).toBe(true);
      expect(
        await read('supportsFeature', [
          keccak256(stringToHex('eth.ens.resolver.extended.multicall')).slice(0, 10),
        ]),
      ).toBe(true);
      expect(await read('verifier')).toBe(rollup.verifier);
      expect(await read('l2Registry')).toBe(registry);
      expect(await read('l2ChainId')).toBe(BigInt(L2_CHAIN_ID));
    });

    it('viem resolves the ETH and Base addresses and texts from the L1 RPC alone', async () => {
      expect(await getEnsAddress(l1Viem, { name: CAROL })).toBe(carol.address);
      expect(await getEnsAddress(l1Viem, { name: CAROL, coinType: BigInt(BASE_COIN_TYPE) })).toBe(
        carol.address.toLowerCase(),
      );
      expect(await getEnsText(l1Viem, { name: CAROL, key: 'description' })).toBe('Proven profile');
      expect(await getEnsText(l1Viem, { name: CAROL, key: 'unset' })).toBeNull();
    });

    it('ensjs reads the whole profile (texts, coins, contenthash) in one gateway request', async () => {
      const ensjs = createEnsPublicClient({
        chain: addEnsContracts(sepolia),
        transport: http(l1.anvil.rpcUrl),
      });
      const before = requests;
      const records = await getRecords(ensjs, {
        name: CAROL,
        texts: ['description', 'url'],
        coins: ['eth', 'base'],
        contentHash: true,
      });
      expect(requests - before).toBe(1);
      expect(records.texts).toEqual([
        { key: 'description', value: 'Proven profile' },
        { key: 'url', value: 'https://carol.example' },
      ]);
      expect(records.coins.map((coin) => [coin.name, coin.value])).toEqual([
        ['eth', carol.address],
        ['base', carol.address],
      ]);
      expect(records.contentHash).toEqual({
        protocolType: 'ipfs',
        decoded: IPFS_CID_V1,
      });
      expect(records.resolverAddress).toBe(resolver);
    });

    it('ethers resolves the address, a text and the contenthash', async () => {
      const ethers = new JsonRpcProvider(l1.anvil.rpcUrl);
      try {
        expect(await ethers.resolveName(CAROL)).toBe(carol.address);
        const ensResolver = await ethers.getResolver(CAROL);
        expect(await ensResolver?.getText('url')).toBe('https://carol.example');
        expect(await ensResolver?.getContentHash()).toBe(`ipfs://${IPFS_CID_V0}`);
      } finally {
        ethers.destroy();
      }
    });

    it('a name minted on the L2 resolves, proven, once the next root is posted', async () => {
      const erin = l2.account(5);
      await registerWithRecords(registry, 'erin', erin, 'Minted just now');
      const name = `erin.${PARENT}`;
      expect(await getEnsAddress(l1Viem, { name })).toBeNull();
      await rollup.propose();
      expect(await getEnsAddress(l1Viem, { name })).toBe(erin.address);
      expect(await getEnsText(l1Viem, { name, key: 'description' })).toBe('Minted just now');
    });
  });

  describe('a lying prover is refused on L1 (the callback reverts, clients get an error)', () => {
    let lookup: { callData: Hex; extraData: Hex };
    let context: { index: bigint };

    /** The OffchainLookup `resolve(carol, text(description))` raises now. */
    async function raiseLookup(): Promise<{ callData: Hex; extraData: Hex }> {
      const data = encodeFunctionData({
        abi: lookupAbi,
        functionName: 'text',
        args: [namehash(CAROL), 'description'],
      });
      const reverted = await revertData(
        encodeFunctionData({
          abi: lookupAbi,
          functionName: 'resolve',
          args: [dnsEncode(CAROL) as Hex, data],
        }),
      );
      if (!reverted) throw new Error('resolve did not revert');
      const decoded = decodeErrorResult({ abi: lookupAbi, data: reverted });
      if (decoded.errorName !== 'OffchainLookup') throw new Error(`resolve reverted ${decoded.errorName}`);
      const [, , callData, , extraData] = decoded.args;
      return { callData, extraData };
    }

    /** What an eth_call of the resolver with `data` reverts with (undefined: it did not revert). */
    async function revertData(data: Hex): Promise<Hex | undefined> {
      try {
        await l1Provider.call({ to: resolver, data });
        return undefined;
      } catch (err) {
        if (isCallException(err) && err.data) return err.data as Hex;
        throw err;
      }
    }

    /** The error the callback reverts with on `response` (undefined: it accepted the response). */
    async function callbackError(
      response: string,
      extraData = lookup.extraData,
    ): Promise<string | undefined> {
      const reverted = await revertData(
        encodeFunctionData({
          abi: lookupAbi,
          functionName: 'fetchCallback',
          args: [response as Hex, extraData],
        }),
      );
      if (!reverted) return undefined;
      try {
        const decoded = decodeErrorResult({ abi: errorsAbi, data: reverted });
        return decoded.errorName === 'Error' ? String(decoded.args[0]) : decoded.errorName;
      } catch {
        return reverted;
      }
    }

    /** Proofs of `ops` at L2 block `block`, presented as the output at `claimedIndex`. */
    async function proveAtBlock(ops: string, block: bigint, claimedIndex: bigint): Promise<string> {
      const prover = new EthProver(l2Provider, block);
      const vm = await prover.evalDecoded(ops);
      const sequence = await prover.prove(vm.needs);
      const header = (await l2Provider.send('eth_getBlockByNumber', [toHex(block), false])) as {
        hash: string;
        stateRoot: string;
      };
      const passer = (await l2Provider.send('eth_getProof', [
        '0x4200000000000000000000000000000000000016',
        [],
        toHex(block),
      ])) as { storageHash: string };
      return coder.encode(WITNESS, [
        [
          claimedIndex,
          [ZeroHash, header.stateRoot, passer.storageHash, header.hash],
          sequence.proofs,
          sequence.order,
        ],
      ]);
    }

    /** Carol's description through viem: strict, the resolver's error; by default a failed resolver is no record. */
    async function expectClientsRefuse(): Promise<void> {
      await expect(getEnsText(l1Viem, { name: CAROL, key: 'description', strict: true })).rejects.toThrow(
        /ResolverError|reverted/,
      );
      expect(await getEnsText(l1Viem, { name: CAROL, key: 'description' })).toBeNull();
    }

    /**
     * What a viem client (strict) learns of the refusal: the universal resolver's ResolverError carries the
     * resolver's revert, here decoded with the verifier's errors (a client with that ABI names it the same way).
     */
    async function clientSees(): Promise<string> {
      const err = await getEnsText(l1Viem, { name: CAROL, key: 'description', strict: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      const reverted =
        err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (
        !(reverted instanceof ContractFunctionRevertedError) ||
        reverted.data?.errorName !== 'ResolverError'
      )
        throw new Error(`not a resolver error: ${String(err)}`);
      const [errorData] = (reverted.data.args ?? []) as [Hex];
      return decodeErrorResult({ abi: errorsAbi, data: errorData }).errorName;
    }

    beforeAll(async () => {
      await rollup.propose();
      lookup = await raiseLookup();
      context = { index: parseL2ProofRequest(resolver, lookup.callData).commitIndex };
      expect(
        await callbackError(await honest.prove(parseL2ProofRequest(resolver, lookup.callData))),
      ).toBeUndefined();
    });

    it('a proof of another slot (another name’s records)', async () => {
      const other = namehash(`erin.${PARENT}`).slice(2);
      const forged = (ops: Hex) => ops.replaceAll(namehash(CAROL).slice(2), other) as Hex;
      const { ops } = parseL2ProofRequest(resolver, lookup.callData);
      expect(forged(ops)).not.toBe(ops);
      lie = (request) => honest.prove({ ...request, ops: forged(request.ops) });
      expect(await callbackError(await lie(parseL2ProofRequest(resolver, lookup.callData)))).toMatch(
        /^MerkleTrie: /,
      );
      await expectClientsRefuse();
    });

    it('a proof of another registry (the same name, another holder and records)', async () => {
      const forged = (ops: Hex) =>
        ops.replaceAll(registry.slice(2).toLowerCase(), otherRegistry.slice(2).toLowerCase()) as Hex;
      const { ops } = parseL2ProofRequest(resolver, lookup.callData);
      expect(forged(ops)).not.toBe(ops);
      lie = (request) => honest.prove({ ...request, ops: forged(request.ops) });
      expect(await callbackError(await lie(parseL2ProofRequest(resolver, lookup.callData)))).toMatch(
        /^MerkleTrie: /,
      );
      await expectClientsRefuse();
    });

    it('a proof at another block than the posted root’s', async () => {
      await l2Send(carol, 'setText', [namehash(CAROL), 'description', 'Not yet posted']);
      const unposted = BigInt(await l2Provider.getBlockNumber());
      lie = ({ ops, commitIndex }) => proveAtBlock(ops, unposted, commitIndex);
      expect(await callbackError(await lie(parseL2ProofRequest(resolver, lookup.callData)))).toBe(
        'OP: invalid root',
      );
      await expectClientsRefuse();
      await l2Send(carol, 'setText', [namehash(CAROL), 'description', 'Proven profile']);
    });

    it('a tampered value', async () => {
      const value = hexlify(toUtf8Bytes('Proven profile')).slice(2);
      const tampered = hexlify(toUtf8Bytes('Forged profile')).slice(2);
      lie = async (request) => {
        const answer = await honest.prove(request);
        if (!answer.includes(value)) throw new Error('the value is not in the proof');
        return answer.replace(value, tampered);
      };
      expect(await callbackError(await lie(parseL2ProofRequest(resolver, lookup.callData)))).toMatch(
        /^MerkleTrie: /,
      );
      await expectClientsRefuse();
    });

    it('a root that was never posted', async () => {
      lie = ({ ops }) => proveAtBlock(ops, BigInt(0), context.index + 1000n);
      expect(await callbackError(await lie(parseL2ProofRequest(resolver, lookup.callData)))).toBe(
        'OutputNotFound',
      );
      expect(await clientSees()).toBe('OutputNotFound');
      await expectClientsRefuse();
    });

    it('a root newer than the one the lookup named', async () => {
      const raised = await raiseLookup();
      await l2Send(carol, 'setText', [namehash(CAROL), 'url', 'https://carol.example']);
      const newer = await rollup.propose();
      if (!newer) throw new Error('no newer root posted');
      const { ops } = parseL2ProofRequest(resolver, raised.callData);
      const answer = await proveAtBlock(ops, newer.l2BlockNumber, newer.index);
      expect(await callbackError(answer, raised.extraData)).toBe('CommitTooNew');
    });

    it('the previous holder’s records after a transfer and a newer root', async () => {
      await rollup.propose();
      const previous = await rollup.latestOutput();
      if (!previous) throw new Error('no root posted');
      await l2Send(carol, 'transferFrom', [carol.address, dave.address, BigInt(namehash(CAROL))]);
      await l2Send(dave, 'setText', [namehash(CAROL), 'description', 'Dave’s now']);
      await l2Send(dave, 'setAddr', [namehash(CAROL), dave.address]);
      // A root posted more than the verifier's window after the previous one.
      await createTestClient({ mode: 'anvil', transport: http(l1.anvil.rpcUrl) }).increaseTime({
        seconds: WINDOW_SECONDS * 2,
      });
      await rollup.propose();
      expect(await getEnsText(l1Viem, { name: CAROL, key: 'description' })).toBe('Dave’s now');
      expect(await getEnsAddress(l1Viem, { name: CAROL })).toBe(dave.address);
      lie = ({ ops }) => proveAtBlock(ops, previous.l2BlockNumber, previous.index);
      const fresh = await raiseLookup();
      expect(
        await callbackError(await lie(parseL2ProofRequest(resolver, fresh.callData)), fresh.extraData),
      ).toBe('CommitTooOld');
      expect(await clientSees()).toBe('CommitTooOld');
      await expectClientsRefuse();
    });
  });

  describe('npm run prover: a second prover process, not offchain-svc', () => {
    let child: ChildProcess | undefined;

    afterAll(async () => {
      if (child) await stopChild(child);
    });

    it('answers the lookups once the resolver’s URL points at it', async () => {
      child = spawn(
        process.execPath,
        [
          '-r',
          'esbuild-register',
          path.join(__dirname, '../../../scripts/l2-prover.ts'),
          '--l1',
          l1.anvil.rpcUrl,
          '--l2',
          l2.anvil.rpcUrl,
          '--portal',
          rollup.optimismPortal,
          '--finder',
          rollup.outputFinder,
          '--l1-block',
          'latest',
          '--port',
          '0',
          '--poll-ms',
          '0',
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const url = await new Promise<string>((resolve, reject) => {
        child?.stdout?.on('data', (chunk: Buffer) => {
          const match = /listening on (\S+)/.exec(chunk.toString());
          if (match?.[1]) resolve(match[1]);
        });
        child?.once('exit', (code) => reject(new Error(`prover exited ${code}`)));
      });
      const tx = (await resolverContract.getFunction('setGatewayUrls')([url])) as {
        wait(): Promise<unknown>;
      };
      await tx.wait();
      const before = requests;
      expect(await getEnsAddress(l1Viem, { name: CAROL })).toBe(dave.address);
      expect(await getEnsText(l1Viem, { name: CAROL, key: 'url' })).toBe('https://carol.example');
      expect(requests).toBe(before);
    });
  });
});
