/**
 * `npm run bench:mint`: mint-svc against a local anvil with ENS and the MintController (and a second anvil as Base
 * Sepolia with our L2Registry and L2MintController), everything on loopback.
 * A counting proxy in front of anvil measures JSON-RPC round trips (HTTP requests) and eth_calls per estimate.
 * Measures p50/p95 of GET /api/v1/mint/estimate (open and token-gated listing), POST /api/v1/mint (checks and
 * EIP-712 signing), a full mint (service signature + mint(...) transaction mined by anvil), and the gas of one mint
 * of the same label with the same three records (ETH and Base addresses, a description) through the L1 controller
 * and through the L2 one, each signed by the service. Prints one table.
 * Bounded: BENCH_SAMPLES (default 300) requests per HTTP operation, BENCH_MINTS (default 50) on-chain mints.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Contract, NonceManager, Wallet } from 'ethers';
import { encodeFunctionData, parseAbi, type Address, type Hex } from 'viem';
import { listingInputSchema } from '@nrp/api';
import { deployMintController, mintControllerArtifact } from '@nrp/contracts';
import { chainByName, namehash } from '@nrp/ens';
import { createLogger, loadConfig } from '@nrp/server';
import { devChainEnv, l2MintControllerAbi, startEnsChain, startL2Chain } from '@nrp/testkit';
import { configSchema } from '../apps/mint-svc/src/config';
import { upsertListing } from '../apps/mint-svc/src/data/listings';
import { createService } from '../apps/mint-svc/src/service';
import { markdownTable, percentile } from './table';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const MINTS = Number(process.env.BENCH_MINTS ?? 50);
const WARMUP = 20;
const SIGNER_KEY = '0x' + '11'.repeat(32);

interface RpcCounter {
  url: string;
  requests: number;
  calls: number;
  server: Server;
}

/** Forwards every POST to anvil, counting HTTP requests (round trips) and JSON-RPC calls (batch members). */
function countingProxy(target: string): Promise<RpcCounter> {
  const counter = { url: '', requests: 0, calls: 0 } as RpcCounter;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      counter.requests += 1;
      const parsed = JSON.parse(body.toString('utf8')) as unknown;
      counter.calls += Array.isArray(parsed) ? parsed.length : 1;
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
          up.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      counter.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      counter.server = server;
      resolve(counter);
    });
  });
}

async function timeIt(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples.sort((a, b) => a - b);
}

async function getJson(url: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The three records of the gas comparison, for the resolver (L1) or registry (L2) of `name`. */
function threeRecords(name: string, holder: string): Hex[] {
  const abi = parseAbi([
    'function setAddr(bytes32 node, address a)',
    'function setAddr(bytes32 node, uint256 coinType, bytes value)',
    'function setText(bytes32 node, string key, string value)',
  ]);
  const node = namehash(name) as Hex;
  const base = BigInt(chainByName('base')?.coinType ?? 0);
  return [
    encodeFunctionData({ abi, functionName: 'setAddr', args: [node, holder as Address] }),
    encodeFunctionData({ abi, functionName: 'setAddr', args: [node, base, holder.toLowerCase() as Hex] }),
    encodeFunctionData({
      abi,
      functionName: 'setText',
      args: [node, 'description', 'A subname of the bench'],
    }),
  ];
}

type MintAnswer = { content: Record<string, string | number>; signature: string; mintController: string };

const mintArgs = (answer: MintAnswer) => {
  const c = answer.content;
  return { ...c, price: BigInt(c.price ?? 0), fee: BigInt(c.fee ?? 0) };
};

async function main(): Promise<void> {
  const chain = await startEnsChain();
  const l2 = await startL2Chain();
  const proxy = await countingProxy(chain.anvil.rpcUrl);
  const { ens, contracts, accounts } = chain;
  const [owner, , , , minterAccount, , , , , treasury] = accounts;
  if (!owner || !minterAccount || !treasury) throw new Error('anvil accounts missing');

  await ens.registerEthName('mint', owner.address);
  const controller = await deployMintController(ens.deployer, {
    registry: contracts.ensRegistry,
    nameWrapper: contracts.nameWrapper,
    resolver: contracts.publicResolver,
    treasury: treasury.address,
    signer: new Wallet(SIGNER_KEY).address,
    owner: owner.address,
  });
  const controllerAddress = await controller.getAddress();
  await ens.send(ens.contract('ensRegistry'), ens.signerOf(owner.address), 'setApprovalForAll', [
    controllerAddress,
    true,
  ]);

  await ens.registerEthName('l2', owner.address);
  const l2Registry = await l2.deployRegistry('l2.eth');
  const l2Controller = await l2.deployMintController(
    l2Registry,
    treasury.address,
    new Wallet(SIGNER_KEY).address,
  );
  await l2.setController(l2Registry, l2Controller);

  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'silent',
    ...devChainEnv(contracts, proxy.url),
    SEPOLIA_MINT_CONTROLLER: controllerAddress,
    MAINNET_RPC_URL: 'http://127.0.0.1:9',
    SIGNER_PRIVATE_KEY: SIGNER_KEY,
    STANDARD_FEE_WEI: '100000000000000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    MINT_RATE_LIMIT_PER_MINUTE: '1000000',
    BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
    BASE_SEPOLIA_L2_MINT_CONTROLLERS: l2Controller,
  });
  const service = await createService(config, createLogger('bench', 'silent'));
  const list = (
    parentName: string,
    settings: Record<string, unknown>,
    network: 'sepolia' | 'base-sepolia' = 'sepolia',
  ) =>
    upsertListing(service.context.db, {
      network,
      parentName,
      parentNode: namehash(parentName),
      settings: { ...listingInputSchema.parse(settings), paymentReceiver: owner.address },
      listedBy: null,
      source: 'file',
    });
  await list('mint.eth', { basePriceWei: '1000000000000000' });
  await list('l2.eth', { basePriceWei: '1000000000000000' }, 'base-sepolia');
  await list('gated.eth', {
    basePriceWei: '1000000000000000',
    tokenGate: { standard: 'erc721', contract: contracts.baseRegistrar },
    allowList: [minterAccount.address],
  });
  const server = await new Promise<Server>((resolve) => {
    const s = service.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const minter = minterAccount.address;

  const estimateUrl = (parent: string, label: string) =>
    `${base}/api/v1/mint/estimate?parentName=${parent}&label=${label}&minterAddress=${minter}&isTestnet=true`;
  const postMint = (label: string, parentName = 'mint.eth', network = 'sepolia') =>
    getJson(`${base}/api/v1/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parentName, label, minterAddress: minter, network }),
    }) as Promise<MintAnswer>;

  for (let i = 0; i < WARMUP; i++) await getJson(estimateUrl('mint.eth', `warm${i}`));

  const rows: Array<[string, string, string, string, string]> = [];
  const measureEstimate = async (parent: string, title: string) => {
    proxy.requests = 0;
    proxy.calls = 0;
    // Distinct labels so that no answer comes from ethers' short-lived call cache.
    const samples = await timeIt(SAMPLES, (i) =>
      getJson(estimateUrl(parent, `e${i}x${parent.length}`)).then(() => undefined),
    );
    rows.push([
      title,
      `${percentile(samples, 50).toFixed(2)} / ${percentile(samples, 95).toFixed(2)}`,
      (proxy.requests / SAMPLES).toFixed(2),
      (proxy.calls / SAMPLES).toFixed(2),
      'n/a',
    ]);
  };
  await measureEstimate('mint.eth', 'GET estimate (open listing)');
  await measureEstimate('gated.eth', 'GET estimate (token gate + allow-list)');

  proxy.requests = 0;
  proxy.calls = 0;
  const signSamples = await timeIt(SAMPLES, (i) => postMint(`s${i}`).then(() => undefined));
  rows.push([
    'POST mint (checks + EIP-712 signature)',
    `${percentile(signSamples, 50).toFixed(2)} / ${percentile(signSamples, 95).toFixed(2)}`,
    (proxy.requests / SAMPLES).toFixed(2),
    (proxy.calls / SAMPLES).toFixed(2),
    'n/a',
  ]);

  const wallet = new NonceManager(new Wallet(minterAccount.privateKey, ens.provider));
  const minterController = new Contract(controllerAddress, mintControllerArtifact.abi, wallet);
  /** Mints `label` under mint.eth on L1 with `records`, signed by the service; answers the gas used. */
  const mintOnL1 = async (label: string, records: Hex[] = []): Promise<bigint> => {
    const answer = await postMint(label);
    const args = mintArgs(answer);
    const tx = await minterController
      .getFunction('mint')
      .send(args, answer.signature, records, '0x', { value: args.price + args.fee });
    const receipt = await tx.wait();
    if (!receipt || receipt.status !== 1) throw new Error(`the L1 mint of ${label} failed`);
    return receipt.gasUsed;
  };
  let mintGas = 0n;
  const mintSamples = await timeIt(MINTS, async (i) => {
    mintGas += await mintOnL1(`m${i}`);
  });
  rows.push([
    'full mint (POST mint + mint(...) tx mined)',
    `${percentile(mintSamples, 50).toFixed(2)} / ${percentile(mintSamples, 95).toFixed(2)}`,
    'n/a',
    'n/a',
    (mintGas / BigInt(MINTS)).toLocaleString('en-US'),
  ]);

  // The same label and records on both chains: what minting on the L2 saves in gas.
  const label = 'carol';
  const l1Gas = await mintOnL1(label, threeRecords(`${label}.mint.eth`, minter));
  const l2Answer = await postMint(label, 'l2.eth', 'base-sepolia');
  const l2Args = mintArgs(l2Answer);
  const l2Receipt = await l2.send(
    l2.account(4),
    l2Answer.mintController as Address,
    l2MintControllerAbi,
    'mint',
    [l2Args, l2Answer.signature, threeRecords(`${label}.l2.eth`, minter), '0x'],
    l2Args.price + l2Args.fee,
  );
  rows.push(
    [
      'gas: mint with 3 records, L1 MintController (sepolia)',
      'n/a',
      'n/a',
      'n/a',
      l1Gas.toLocaleString('en-US'),
    ],
    [
      'gas: mint with 3 records, L2MintController (base-sepolia)',
      'n/a',
      'n/a',
      'n/a',
      `${l2Receipt.gasUsed.toLocaleString('en-US')} (${((100 * Number(l2Receipt.gasUsed)) / Number(l1Gas)).toFixed(0)}% of L1)`,
    ],
  );

  const header: [string, string, string, string, string] = [
    'operation',
    'p50 / p95 ms',
    'RPC round trips / req',
    'eth_calls / req',
    'gas / mint',
  ];
  console.log(
    [
      `mint-svc bench: ${SAMPLES} requests per HTTP operation, ${MINTS} on-chain mints, anvil + PGlite on loopback`,
      markdownTable(header, rows),
    ].join('\n'),
  );

  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const step of service.onShutdown) await step();
  await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
  await chain.stop();
  await l2.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
