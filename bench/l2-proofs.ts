/**
 * `npm run bench:l2-proofs`: a proven L2 subname (ProvenL2Resolver, proofs from offchain-svc's proof route against
 * the dev rollup's posted output roots) beside a signed one (L2NameResolver, offchain-svc's signed L2 gateway) and
 * an on-chain name (PublicResolver), on two anvils (L1 with ENS, L2 with Base Sepolia's chain id), loopback only.
 * Measures the gas of the resolver's callback in `eth_call` (eth_estimateGas, one text record), the time
 * offchain-svc takes to answer the lookup p50/p95 cold (proven: the first request after a new root; signed: no
 * answer cache) and hot (production defaults: the latest root polled every 5 s, signed answers cached 2 s), the
 * bytes of an answer, and a whole viem `getEnsText` + `getEnsAddress` p50/p95. Prints one table.
 * Bounded: BENCH_SAMPLES (default 100) per hot measure, BENCH_COLD_SAMPLES (default 30) per cold one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Wallet } from 'ethers';
import {
  concat,
  createPublicClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  http,
  parseAbi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import { deployContract, l2NameResolverArtifact, provenL2ResolverArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import { createLogger, loadConfig } from '@nrp/server';
import {
  BASE_COIN_TYPE,
  L2_CHAIN_ID,
  deployDevRollup,
  l2RegistryAbi,
  startEnsChain,
  startL2Chain,
  type L2Chain,
} from '@nrp/testkit';
import { configSchema } from '../apps/offchain-svc/src/config';
import { createService } from '../apps/offchain-svc/src/service';
import { markdownTable, percentile } from './table';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const COLD_SAMPLES = Number(process.env.BENCH_COLD_SAMPLES ?? 30);
const WARMUP = 10;
const PROVEN = 'carol.proven.eth';
const SIGNED = 'carol.l2.eth';
const ONCHAIN = 'alice.eth';
const DESCRIPTION = 'A profile of some length, as people write them.';

const lookupAbi = parseAbi([
  'error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData)',
  'function text(bytes32 node, string key) view returns (string)',
  'function resolve(bytes name, bytes data) view returns (bytes)',
]);

interface Lookup {
  sender: Address;
  callData: Hex;
  callbackFunction: Hex;
  extraData: Hex;
}

/** p50 / p95 of `samples` ms, and the p50 alone for ratios. */
function spread(samples: number[]): { text: string; p50: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  return { text: `${p50.toFixed(1)} / ${percentile(sorted, 95).toFixed(1)}`, p50 };
}

/** ms of each of `fns` over `n` rounds, one call of each per round in turn, so all see the same machine load. */
async function interleaved(
  n: number,
  fns: Record<string, () => Promise<unknown>>,
  beforeRound: () => Promise<void> = () => Promise.resolve(),
): Promise<Record<string, { text: string; p50: number }>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((key) => [key, []]));
  for (let i = 0; i < n; i++) {
    await beforeRound();
    for (const [key, fn] of Object.entries(fns)) {
      const started = process.hrtime.bigint();
      await fn();
      samples[key]?.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, spread(values)]));
}

async function registerCarol(l2: L2Chain, parent: string): Promise<Address> {
  const registry = await l2.deployRegistry(parent, { ownerIsController: true });
  const holder = l2.account(3);
  await l2.register(registry, 'carol', holder.address, (await l2.now()) + 365n * 86400n);
  const node = namehash(`carol.${parent}`);
  const set = (functionName: string, args: readonly unknown[]) =>
    l2.send(holder, registry, l2RegistryAbi, functionName, [node, ...args]);
  await set('setAddr', [holder.address]);
  await set('setAddr', [BigInt(BASE_COIN_TYPE), holder.address]);
  await set('setText', ['description', DESCRIPTION]);
  return registry;
}

/** offchain-svc on loopback, serving both registries, signed and proven. */
async function startGateway(env: Record<string, string>): Promise<{ origin: string; stop(): Promise<void> }> {
  const offchain = await createService(
    loadConfig(configSchema, { LOG_LEVEL: 'silent', ...env }),
    createLogger('bench-l2-proofs', 'silent'),
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(offchain.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const step of offchain.onShutdown) await step();
    },
  };
}

/** The OffchainLookup `resolve(name, text(description))` raises at `resolver`. */
async function raiseLookup(client: PublicClient, resolver: Address, name: string): Promise<Lookup> {
  const data = encodeFunctionData({
    abi: lookupAbi,
    functionName: 'text',
    args: [namehash(name), 'description'],
  });
  try {
    await client.call({
      to: resolver,
      data: encodeFunctionData({
        abi: lookupAbi,
        functionName: 'resolve',
        args: [dnsEncode(name) as Hex, data],
      }),
    });
  } catch (err) {
    const revert = (err as { walk(fn: (e: unknown) => boolean): unknown }).walk(
      (e) => typeof (e as { data?: unknown }).data === 'string',
    ) as { data: Hex } | null;
    if (revert) {
      const decoded = decodeErrorResult({ abi: lookupAbi, data: revert.data });
      if (decoded.errorName === 'OffchainLookup') {
        const [sender, , callData, callbackFunction, extraData] = decoded.args;
        return { sender, callData, callbackFunction, extraData };
      }
    }
    throw err;
  }
  throw new Error(`${name}: resolve did not raise OffchainLookup`);
}

async function answerOf(res: Response): Promise<Hex> {
  const body = (await res.json()) as { data?: Hex };
  if (res.status !== 200 || !body.data)
    throw new Error(`gateway answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data;
}

async function main(): Promise<void> {
  const [l1, l2] = await Promise.all([startEnsChain(), startL2Chain()]);
  const stops: Array<() => Promise<void>> = [];
  try {
    const [deployer, , , , , , , operator] = l1.accounts;
    if (!deployer || !operator) throw new Error('anvil accounts');
    const signedRegistry = await registerCarol(l2, 'l2.eth');
    const provenRegistry = await registerCarol(l2, 'proven.eth');
    const rollup = await deployDevRollup({
      l1RpcUrl: l1.anvil.rpcUrl,
      l2RpcUrl: l2.anvil.rpcUrl,
      operatorKey: operator.privateKey,
      gatewayUrls: [],
      windowSeconds: 3600,
    });
    stops.push(async () => rollup.stop());
    await rollup.propose();

    const signer = Wallet.createRandom();
    const gatewayEnv = (caches: Record<string, string>) => ({
      GATEWAY_SIGNER_KEY: signer.privateKey,
      SEPOLIA_RPC_URL: l1.anvil.rpcUrl,
      BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
      BASE_SEPOLIA_L2_REGISTRIES: `${signedRegistry},${provenRegistry}`,
      BASE_SEPOLIA_PROOF_OPTIMISM_PORTAL: rollup.optimismPortal,
      BASE_SEPOLIA_PROOF_OUTPUT_FINDER: rollup.outputFinder,
      L2_PROOF_L1_BLOCK_TAG: 'latest',
      // anvil mines only on transactions: its head is as old as the last one.
      L2_MAX_BLOCK_AGE_SECONDS: '3600',
      ...caches,
    });
    // Hot: the production defaults (latest root polled every 5 s, signed answers cached 2 s). Cold: neither.
    const hot = await startGateway(gatewayEnv({}));
    stops.push(hot.stop);
    const coldGateway = await startGateway(
      gatewayEnv({ L2_PROOF_COMMIT_POLL_MS: '0', L2_ANSWER_CACHE_MS: '0' }),
    );
    stops.push(coldGateway.stop);

    const signedUrl = `${hot.origin}/api/v1/gateway/l2/base-sepolia/${signedRegistry}/{sender}/{data}.json`;
    const signedResolver = (await (
      await deployContract(l1.ens.deployer, l2NameResolverArtifact, [
        signedUrl,
        [signer.address],
        L2_CHAIN_ID,
        signedRegistry,
      ])
    ).getAddress()) as Address;
    const provenResolver = (await (
      await deployContract(l1.ens.deployer, provenL2ResolverArtifact, [
        rollup.verifier,
        L2_CHAIN_ID,
        provenRegistry,
        [`${hot.origin}/api/v1/proofs/base-sepolia`],
      ])
    ).getAddress()) as Address;
    await l1.ens.registerEthName('l2', deployer.address, { resolver: signedResolver });
    await l1.ens.registerEthName('proven', deployer.address, { resolver: provenResolver });
    await l1.ens.registerEthName('alice', deployer.address);
    await l1.ens.setAddr(ONCHAIN, deployer.address);
    await l1.ens.setText(ONCHAIN, 'description', DESCRIPTION);

    const client = createPublicClient({ chain: sepolia, transport: http(l1.anvil.rpcUrl) }) as PublicClient;
    // Raises lookups rather than following them.
    const l1Calls = createPublicClient({ transport: http(l1.anvil.rpcUrl), ccipRead: false }) as PublicClient;
    const provenLookup = await raiseLookup(l1Calls, provenResolver, PROVEN);
    const signedLookup = await raiseLookup(l1Calls, signedResolver, SIGNED);
    const askProven = (origin: string, lookup: Lookup) =>
      fetch(`${origin}/api/v1/proofs/base-sepolia`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sender: lookup.sender, data: lookup.callData }),
      }).then(answerOf);
    const askSigned = (origin: string) =>
      fetch(
        `${origin}/api/v1/gateway/l2/base-sepolia/${signedRegistry}/${signedLookup.sender.toLowerCase()}/${signedLookup.callData}.json`,
      ).then(answerOf);

    /** The call of `callback(answer, extraData)` at the resolver that a client makes with the gateway's answer. */
    const callbackCall = (lookup: Lookup, answer: Hex) => ({
      to: lookup.sender,
      data: concat([
        lookup.callbackFunction,
        encodeAbiParameters([{ type: 'bytes' }, { type: 'bytes' }], [answer, lookup.extraData]),
      ]),
    });
    const onchainText = {
      to: l1.contracts.publicResolver as Address,
      data: encodeFunctionData({
        abi: lookupAbi,
        functionName: 'text',
        args: [namehash(ONCHAIN), 'description'],
      }),
    };
    const provenAnswer = await askProven(hot.origin, provenLookup);
    const signedAnswer = await askSigned(hot.origin);
    const gas = {
      proven: await l1Calls.estimateGas(callbackCall(provenLookup, provenAnswer)),
      signed: await l1Calls.estimateGas(callbackCall(signedLookup, signedAnswer)),
      onchain: await l1Calls.estimateGas(onchainText),
    };

    // Cold proven: the L2 moves on and a new root is posted before each round, whose lookup names that root.
    let coldLookup = provenLookup;
    const newRoot = async () => {
      await l2.send(l2.account(3), provenRegistry, l2RegistryAbi, 'setText', [
        namehash(PROVEN),
        'url',
        'https://carol.example',
      ]);
      await rollup.propose();
      coldLookup = await raiseLookup(l1Calls, provenResolver, PROVEN);
    };
    const cold = await interleaved(
      COLD_SAMPLES,
      {
        proven: () => askProven(coldGateway.origin, coldLookup),
        signed: () => askSigned(coldGateway.origin),
      },
      newRoot,
    );
    const lookup = await raiseLookup(l1Calls, provenResolver, PROVEN);
    const hotAnswers = {
      proven: () => askProven(hot.origin, lookup),
      signed: () => askSigned(hot.origin),
    };
    await interleaved(WARMUP, hotAnswers);
    const hotGateway = await interleaved(SAMPLES, hotAnswers);
    const callbacks = await interleaved(SAMPLES, {
      proven: () => l1Calls.call(callbackCall(lookup, provenAnswer)),
      signed: () => l1Calls.call(callbackCall(signedLookup, signedAnswer)),
      onchain: () => l1Calls.call(onchainText),
    });

    const viemLookup = (name: string) => async () => {
      const [text, address] = await Promise.all([
        getEnsText(client, { name, key: 'description', strict: true }),
        getEnsAddress(client, { name, strict: true }),
      ]);
      if (text !== DESCRIPTION || !address) throw new Error(`${name} resolved ${text}, ${address}`);
    };
    const lookups = { proven: viemLookup(PROVEN), signed: viemLookup(SIGNED), onchain: viemLookup(ONCHAIN) };
    await interleaved(WARMUP, lookups);
    const viem = await interleaved(SAMPLES, lookups);

    const bytes = (answer: Hex) => ((answer.length - 2) / 2).toLocaleString('en-US');
    const n = (value: bigint) => value.toLocaleString('en-US');
    const ratio = (of: Record<string, { p50: number }>) =>
      ((of.proven?.p50 ?? NaN) / (of.signed?.p50 ?? NaN)).toFixed(2);
    const cells = (of: Record<string, { text: string }>) => [
      of.proven?.text ?? '',
      of.signed?.text ?? '',
      of.onchain?.text ?? 'n/a',
    ];
    const rows = [
      [
        'gas of the callback in eth_call (eth_estimateGas, one text)',
        n(gas.proven),
        n(gas.signed),
        `${n(gas.onchain)} (text())`,
      ],
      ['bytes of the gateway answer (one text)', bytes(provenAnswer), bytes(signedAnswer), 'n/a'],
      [`gateway answer, cold, p50 / p95 ms (${COLD_SAMPLES})`, ...cells(cold)],
      [`gateway answer, hot, p50 / p95 ms (${SAMPLES})`, ...cells(hotGateway)],
      [`eth_call of the callback, p50 / p95 ms (${SAMPLES})`, ...cells(callbacks)],
      [`viem getEnsText + getEnsAddress, p50 / p95 ms (${SAMPLES})`, ...cells(viem)],
      [
        'hot proven / signed p50 (goal <= 2): gateway, callback, viem',
        `${ratio(hotGateway)}, ${ratio(callbacks)}, ${ratio(viem)}`,
        '',
        '',
      ],
    ];
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
    console.log(
      [
        `L2 proofs bench: two anvils, offchain-svc on loopback, node ${process.version}, load average ${load}`,
        markdownTable(
          ['measure', `proven (${PROVEN})`, `signed L2 (${SIGNED})`, `on-chain (${ONCHAIN})`],
          rows,
        ),
      ].join('\n'),
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    await Promise.all([l1.stop(), l2.stop()]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
