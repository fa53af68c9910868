/**
 * `npm run bench:index`: mint-svc's names index against a local anvil with ENS and the MintController. Prints one
 * table:
 * - indexing rate: BENCH_INDEX_MINTS mints and as many registry transfers (one per name) are mined first (signed
 *   here and sent raw, many transactions a block), then the indexer (batches of 1000 blocks, 0 confirmations, the
 *   outbox on) reads them from the start; events per second from the service's start to the cursor at the head;
 * - lag under a steady load: BENCH_LAG_RATE mints per second for BENCH_LAG_SECONDS while the indexer runs every
 *   second (its default is 2 s); the lag in blocks, sampled every 200 ms;
 * - GET /api/v1/names by owner with BENCH_QUERY_ROWS names seeded directly into the table (100 names per owner);
 *   p50/p95 over BENCH_SAMPLES requests.
 * The database is PGlite in memory, or PostgreSQL when DATABASE_URL is set.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddress, hexlify, Interface, randomBytes, Wallet } from 'ethers';
import { sql } from 'kysely';
import pino from 'pino';
import { listingInputSchema } from '@nrp/api';
import { deployMintController, mintControllerArtifact } from '@nrp/contracts';
import { namehash } from '@nrp/ens';
import { createLogger, loadConfig } from '@nrp/server';
import { devChainEnv, startEnsChain } from '@nrp/testkit';
import { configSchema } from '../apps/mint-svc/src/config';
import { upsertListing } from '../apps/mint-svc/src/data/listings';
import { latestCheckpoints } from '../apps/mint-svc/src/data/names-index';
import { createService } from '../apps/mint-svc/src/service';
import { signMintContext } from '../apps/mint-svc/src/mint/sign-mint';
import { markdownTable, percentile } from './table';

const MINTS = Number(process.env.BENCH_INDEX_MINTS ?? 10_000);
const LAG_RATE = Number(process.env.BENCH_LAG_RATE ?? 10);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 30);
const QUERY_ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SIGNER_KEY = '0x' + '11'.repeat(32);
const OWNERS = Math.max(1, Math.floor(QUERY_ROWS / 100));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const chain = await startEnsChain();
  const { ens, contracts, accounts } = chain;
  const [owner, , , , minterAccount, , , , , treasury] = accounts;
  if (!owner || !minterAccount || !treasury) throw new Error('anvil accounts missing');
  const signer = new Wallet(SIGNER_KEY);
  await ens.registerEthName('bench', owner.address);
  const deployed = await deployMintController(ens.deployer, {
    registry: contracts.ensRegistry,
    nameWrapper: contracts.nameWrapper,
    resolver: contracts.publicResolver,
    treasury: treasury.address,
    signer: signer.address,
    owner: owner.address,
  });
  const controllerAddress = await deployed.getAddress();
  await ens.send(ens.contract('ensRegistry'), ens.signerOf(owner.address), 'setApprovalForAll', [
    controllerAddress,
    true,
  ]);
  const provider = ens.provider;
  const minter = new Wallet(minterAccount.privateKey);
  const controller = new Interface(mintControllerArtifact.abi);
  const registry = new Interface(['function setOwner(bytes32 node, address owner)']);
  const { chainId } = await provider.getNetwork();
  const parentNode = namehash('bench.eth');
  // Signed here with our own nonces and sent raw: no round trips per transaction but its own eth_sendRawTransaction.
  let nonce = await provider.getTransactionCount(minterAccount.address, 'pending');
  const sendRaw = async (to: string, data: string, gasLimit: number) => {
    const raw = await minter.signTransaction({
      type: 0,
      chainId,
      nonce: nonce++,
      to,
      data,
      gasLimit,
      gasPrice: 10n ** 9n,
    });
    return provider.send('eth_sendRawTransaction', [raw]) as Promise<string>;
  };

  const mintData = async (label: string) => {
    const params = {
      owner: minterAccount.address,
      label,
      parentNode,
      price: 0n,
      fee: 0n,
      paymentReceiver: owner.address,
      expiry: 0n,
      signatureExpiry: 2n ** 40n,
      verifiedMinter: minterAccount.address,
      fuses: 0,
    };
    const signature = await signMintContext(signer, Number(chainId), controllerAddress, params);
    return controller.encodeFunctionData('mint', [params, signature, [], '0x']);
  };
  const sendMint = async (label: string) => sendRaw(controllerAddress, await mintData(label), 400_000);

  // ---- indexing rate: mints and transfers mined first, indexed from the start ----
  const startBlock = (await provider.getBlockNumber()) + 1;
  await provider.send('evm_setAutomine', [false]);
  // Full blocks would raise the base fee block after block: start it at 0 so the fixed gas price always pays.
  await provider.send('anvil_setNextBlockBaseFeePerGas', ['0x0']);
  const mineAll = async () => {
    for (;;) {
      await provider.send('evm_mine', []);
      const pool = (await provider.send('txpool_status', [])) as { pending: string; queued: string };
      if (Number(pool.pending) + Number(pool.queued) === 0) return;
    }
  };
  const CHUNK = 500;
  for (let i = 0; i < MINTS; i += CHUNK) {
    const labels = Array.from({ length: Math.min(CHUNK, MINTS - i) }, (_, k) => `n${i + k}`);
    const data = await Promise.all(labels.map(mintData));
    await Promise.all(data.map((d) => sendRaw(controllerAddress, d, 400_000)));
    await mineAll();
  }
  const registryAddress = contracts.ensRegistry;
  for (let i = 0; i < MINTS; i += CHUNK) {
    const sends = Array.from({ length: Math.min(CHUNK, MINTS - i) }, (_, k) =>
      sendRaw(
        registryAddress,
        registry.encodeFunctionData('setOwner', [
          namehash(`n${i + k}.bench.eth`),
          getAddress(hexlify(randomBytes(20))),
        ]),
        100_000,
      ),
    );
    await Promise.all(sends);
    await mineAll();
  }
  await provider.send('evm_setAutomine', [true]);
  const head = await provider.getBlockNumber();
  console.error(`${MINTS} mints and ${MINTS} transfers mined up to block ${head}; indexing`);

  const config = loadConfig(configSchema, {
    LOG_LEVEL: 'silent',
    ...devChainEnv(contracts, chain.anvil.rpcUrl),
    SEPOLIA_MINT_CONTROLLER: controllerAddress,
    MAINNET_RPC_URL: 'http://127.0.0.1:9',
    SIGNER_PRIVATE_KEY: SIGNER_KEY,
    RATE_LIMIT_PER_MINUTE: '100000000',
    INDEX_CONFIRMATIONS: '0',
    INDEX_INTERVAL_MS: '1000',
    INDEX_BATCH_BLOCKS: '1000',
    SEPOLIA_INDEX_START_BLOCK: String(startBlock),
    // The outbox is written (as in production), never relayed here.
    OFFCHAIN_URL: 'http://127.0.0.1:9',
    EVENTS_INGEST_TOKEN: 'bench-index-token-0123456789abcdef',
    EVENTS_RELAY_INTERVAL_MS: '0',
    ...(process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: 'bench_index' }
      : {}),
  });
  const listing = { ...listingInputSchema.parse({ basePriceWei: '0' }), paymentReceiver: owner.address };
  // Failures of the indexer show on stderr (the table is the only stdout).
  const service = await createService(
    config,
    createLogger('bench', process.env.BENCH_LOG_LEVEL ?? 'silent', pino.destination(2)),
  );
  const indexStart = Date.now();
  await upsertListing(service.context.db, {
    network: 'sepolia',
    parentName: 'bench.eth',
    parentNode,
    settings: listing,
    listedBy: null,
    source: 'file',
  });
  const cursor = async () => (await latestCheckpoints(service.context.db, 'sepolia', 1))[0]?.blockNumber ?? 0;
  while ((await cursor()) < head) await sleep(50);
  const indexSeconds = (Date.now() - indexStart) / 1000;
  // What was measured is a complete index: every name, each with its new holder.
  const indexed = await service.context.db
    .selectFrom('mint_names')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('parent_name', '=', 'bench.eth')
    .where('owner', '!=', minterAccount.address)
    .executeTakeFirst();
  if (Number(indexed?.n) !== MINTS) throw new Error(`${String(indexed?.n)} names transferred, not ${MINTS}`);

  // ---- lag under a steady mint load ----
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      lags.push(Math.max(0, (await provider.getBlockNumber()) - (await cursor())));
      await sleep(200);
    }
  })();
  const loadEnd = Date.now() + LAG_SECONDS * 1000;
  let loadMints = 0;
  while (Date.now() < loadEnd) {
    const next = Date.now() + 1000 / LAG_RATE;
    await sendMint(`load${loadMints}`);
    loadMints += 1;
    await sleep(Math.max(0, next - Date.now()));
  }
  await sleep(1500);
  sampling = false;
  await sampler;
  lags.sort((a, b) => a - b);

  // ---- GET /api/v1/names by owner at QUERY_ROWS names ----
  const db = service.context.db;
  const chunk = 100_000;
  for (let from = 1; from <= QUERY_ROWS; from += chunk) {
    const to = Math.min(QUERY_ROWS, from + chunk - 1);
    await sql`
      INSERT INTO mint_names
        (network, node, name, parent_name, label, owner, wrapped, expiry, minted_at, tx_hash, minted_block, updated_block)
      SELECT 'mainnet', '0x' || lpad(to_hex(g), 64, '0'), 'q' || g || '.seed.eth', 'seed.eth', 'q' || g,
             '0x' || lpad((g % ${OWNERS})::text, 40, '0'), false, NULL, now(), '0x00', 1, 1
      FROM generate_series(${from}::int, ${to}::int) AS g`.execute(db);
  }
  await sql`ANALYZE mint_names`.execute(db);
  const server = await new Promise<Server>((resolve) => {
    const s = service.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i += 1) {
    const ownerOf = `0x${String((i * 7919) % OWNERS).padStart(40, '0')}`;
    const started = performance.now();
    const res = await fetch(`${base}/api/v1/names?network=mainnet&owner=${ownerOf}&size=25`);
    const body = (await res.json()) as { items: unknown[] };
    if (res.status !== 200 || body.items.length === 0) throw new Error(`query answered ${res.status}`);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);

  const events = MINTS * 2;
  const rows: string[][] = [
    [
      `indexing ${MINTS} mints + ${MINTS} transfers (${head - startBlock + 1} blocks)`,
      `${(events / indexSeconds).toFixed(0)} events/s`,
      `${indexSeconds.toFixed(1)} s to catch up`,
    ],
    [
      `lag under ${LAG_RATE} mints/s for ${LAG_SECONDS} s (${loadMints} mints, index every 1 s)`,
      `p50 ${percentile(lags, 50)} / p95 ${percentile(lags, 95)} / max ${lags.at(-1) ?? 'n/a'} blocks`,
      `${lags.length} samples`,
    ],
    [
      `GET /api/v1/names by owner, ${QUERY_ROWS.toLocaleString('en')} names, ${OWNERS} owners, size 25`,
      `p50 ${percentile(times, 50).toFixed(2)} / p95 ${percentile(times, 95).toFixed(2)} ms`,
      `${SAMPLES} requests`,
    ],
  ];
  const header = ['measurement', 'result', 'detail'];
  console.log(
    [
      `mint-svc names index bench: anvil + ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} on loopback`,
      markdownTable(header, rows),
    ].join('\n'),
  );

  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const step of service.onShutdown) await step();
  await chain.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
