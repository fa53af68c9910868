/**
 * `npm run bench:abuse`: every attack of issue 20 against the dev stack as service processes (bench/stack.ts: the built
 * bundles, on PGlite, or with DATABASE_URL on PostgreSQL), with the services' own limits (nothing is
 * lifted). Prints one table: attack, answer (status and bytes), time, peak RSS growth of the attacked service over
 * its RSS just before the attack (VmRSS sampled every 20 ms), and its RSS 60 s after its group. The 60 s wait is
 * shared by a group: the attacks on offchain-svc (and the lookups through resolver-svc), then those on
 * metadata-svc, each group followed by one 60 s wait. Ends with every service's RSS at the start and 60 s after the
 * whole run (goal: within 25% of the start on PostgreSQL). The start is measured after one ordinary request of each
 * kind the attacks use and a 60 s wait: a warm, idle service (services run with the Deployments' NODE_OPTIONS, so
 * they give memory back once idle).
 *
 * The avatars, NFT metadata and tokenURI answers come from a file server of this process (metadata-svc allows its
 * origin, as a development origin) and from contracts set on anvil whose every call answers fixed words.
 */
import { createServer, request as httpRequest, Agent, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { TRANSFORM_SIZES } from '@nrp/api';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash, tokenIdFromNamehash } from '@nrp/ens';
import type { EnsFixture } from '@nrp/testkit';
import { DATABASE_URL, rssMb, startBenchStack, type BenchStack } from './stack';
import { markdownTable } from './table';

const RUN = `bench_abuse_${Date.now().toString(36)}`;
const SETTLE_MS = Number(process.env.ABUSE_SETTLE_MS ?? 60_000);
const PARENT = 'offchain.eth';
const BIG_RECORDS = 100;
const bigTexts = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: 'x'.repeat(4096) }));
const SSRF_URLS = [
  'https://192.0.2.2:4001/a',
  'https://198.51.100.7/a',
  'https://203.0.113.9/a',
  'https://[::127.0.0.1]/a',
  'https://[::ffff:0:127.0.0.1]/a',
  'https://[64:ff9b::127.0.0.1]/a',
  'https://[2002:7f00:1::]/a',
  'https://[fec0::1]/a',
];

interface Answer {
  status: number;
  bytes: number;
}

interface Row {
  attack: string;
  answer: string;
  seconds: number;
  peakGrowthMb: number;
  service: string;
}

/** One request; a connection that closed without an answer is status 0 (shown as "closed"). */
async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const res = await fetch(url, init);
    return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
  } catch {
    return { status: 0, bytes: 0 };
  }
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** "200×3, 1.2 MB max" */
function summary(answers: Answer[]): string {
  const counts = new Map<number, number>();
  for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  const statuses = [...counts]
    .map(([status, n]) => `${status === 0 ? 'closed' : status}${n > 1 ? `×${n}` : ''}`)
    .join(', ');
  const max = Math.max(...answers.map((a) => a.bytes));
  return `${statuses}; ${max >= 1024 * 1024 ? `${(max / 2 ** 20).toFixed(1)} MB` : `${(max / 1024).toFixed(1)} KB`} max`;
}

/** Runs `attack` while sampling the service's RSS; the row's growth is over the RSS just before. */
async function measure(
  stack: BenchStack,
  service: 'offchain' | 'metadata',
  attack: string,
  run: () => Promise<string>,
): Promise<Row> {
  const pid = stack.service(service).child.pid ?? 0;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  const started = performance.now();
  try {
    const answer = await run();
    return {
      attack,
      answer,
      seconds: (performance.now() - started) / 1000,
      peakGrowthMb: Math.max(peak, rssMb(pid)) - before,
      service,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The ABI encoding of a string answer, as 32-byte words (hex). */
function abiString(text: string): string[] {
  const hex = Buffer.from(text, 'utf8').toString('hex');
  return ['20', text.length.toString(16), ...(hex.match(/.{1,64}/g) ?? []).map((w) => w.padEnd(64, '0'))];
}

/** A contract whose every call answers `words` (an ERC-1155's balanceOf then reads 0x20: a balance). */
async function contractAnswering(ens: EnsFixture, n: number, words: string[]): Promise<string> {
  const address = `0x${'5e'.repeat(18)}${n.toString(16).padStart(4, '0')}`;
  const runtime =
    words.map((w, i) => `7f${w.padStart(64, '0')}61${(i * 32).toString(16).padStart(4, '0')}52`).join('') +
    `61${(words.length * 32).toString(16).padStart(4, '0')}6000f3`;
  await ens.provider.send('anvil_setCode', [address, `0x${runtime}`]);
  return address;
}

/** `resolve(name, multicall(text(node, key) for each key))`. */
function multicallData(name: string, keys: string[]): string {
  const calls = keys.map((key) => resolverInterface.encodeFunctionData('text', [namehash(name), key]));
  return resolverInterface.encodeFunctionData('resolve', [
    dnsEncode(name),
    resolverInterface.encodeFunctionData('multicall', [calls]),
  ]);
}

/** Sends only the headers of a POST announcing `length` bytes; answers the status and when it came. */
function headersOnly(url: string, length: number): Promise<Answer> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${length}\r\n\r\n`,
      );
    });
    let text = '';
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const status = /^HTTP\/1\.1 (\d+)/.exec(text);
      if (status && text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve({ status: Number(status[1]), bytes: text.length });
      }
    });
    socket.on('error', reject);
  });
}

/** GETs `path` from a local address of its own until `until`, one request at a time; answers the statuses. */
async function floodFrom(localAddress: string, url: string, until: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, localAddress });
  const statuses: number[] = [];
  try {
    while (Date.now() < until) {
      statuses.push(
        await new Promise<number>((resolve) => {
          httpRequest(url, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
            .on('error', () => resolve(0))
            .end();
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

interface Files {
  server: Server;
  origin: string;
  serve(path: string, bytes: Buffer, type: string): string;
}

async function fileServer(): Promise<Files> {
  const files = new Map<string, { type: string; bytes: Buffer }>();
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) return res.writeHead(404).end();
    return res.writeHead(200, { 'content-type': file.type }).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    origin,
    serve: (path, bytes, type) => {
      files.set(path, { type, bytes });
      return `${origin}${path}`;
    },
  };
}

const BOMBS = 30;

/** The names of the metadata attacks, registered with their avatar records. */
async function seedNames(ens: EnsFixture, owner: string, files: Files): Promise<void> {
  const named = async (label: string, avatar: string) => {
    const { name } = await ens.registerEthName(label, owner);
    await ens.setAddr(name, owner);
    await ens.setText(name, 'avatar', avatar);
    return name;
  };
  const noise =
    '<svg xmlns="http://www.w3.org/2000/svg" width="2048" height="2048"><filter id="f">' +
    '<feTurbulence baseFrequency="0.9" numOctaves="10"/></filter>' +
    '<rect width="2048" height="2048" fill="#0a0" filter="url(#f)"/></svg>';
  await named('turbulence', files.serve('/noise.svg', Buffer.from(noise), 'image/svg+xml'));
  const bomb = await sharp({ create: { width: 6320, height: 6320, channels: 3, background: '#fff' } })
    .webp({ lossless: true, effort: 0 })
    .toBuffer();
  for (let i = 0; i < BOMBS; i++) await named(`bomb${i}`, files.serve(`/bomb${i}.webp`, bomb, 'image/webp'));
  const plain = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#37c' } })
    .png()
    .toBuffer();
  await named('plain', files.serve('/plain.png', plain, 'image/png'));
  // 10 MB of nested arrays, the finding's deeply nested NFT metadata.
  const deep = Buffer.from(`${'['.repeat(5 * 1024 * 1024)}${']'.repeat(5 * 1024 * 1024)}`);
  const chainId = (await ens.provider.getNetwork()).chainId;
  const nft = (contract: string) => `eip155:${chainId}/erc1155:${contract}/1`;
  await named(
    'deepnft',
    nft(await contractAnswering(ens, 1, abiString(files.serve('/deep.json', deep, 'application/json')))),
  );
  const endless = await named('endless', nft(await contractAnswering(ens, 2, ['20', 'f'.repeat(64)])));
  await ens.wrapName(endless, owner);
  await named('notutf8', nft(await contractAnswering(ens, 3, ['20', '2', `fffe${'0'.repeat(60)}`])));
  for (const [i, url] of SSRF_URLS.entries()) await named(`ssrf${i}`, url);
}

async function offchainAttacks(stack: BenchStack): Promise<Row[]> {
  const offchain = stack.service('offchain').url;
  const key = { 'x-auth-token': stack.offchainApiKey };
  // The stored records the reads go over: BIG_RECORDS of 100 texts × 4,096 characters (two per bulk request).
  for (let i = 0; i < BIG_RECORDS; i += 2) {
    const items = [i, i + 1].map((n) => ({ parentName: PARENT, label: `big${n}`, texts: bigTexts }));
    const res = await call(`${offchain}/api/v1/subnames/bulk`, json({ items }, key));
    if (res.status !== 200) throw new Error(`seeding big records: HTTP ${res.status}`);
  }
  const rows: Row[] = [];
  const attack = (name: string, run: () => Promise<string>) =>
    measure(stack, 'offchain', name, run).then((row) => rows.push(row));

  await attack('bulk: 1 item of 100 × 4 KB texts + 249 repeats of its label', async () => {
    const items = [
      { parentName: PARENT, label: 'amp', texts: bigTexts },
      ...Array.from({ length: 249 }, () => ({ parentName: PARENT, label: 'amp' })),
    ];
    return summary([await call(`${offchain}/api/v1/subnames/bulk?atomic=false`, json({ items }, key))]);
  });
  await attack(`search size 100 without a key over ${BIG_RECORDS} big records (×10 at once)`, async () =>
    summary(
      await Promise.all(
        Array.from({ length: 10 }, () =>
          call(`${offchain}/api/v1/subnames/search`, json({ parentName: PARENT, size: 100 })),
        ),
      ),
    ),
  );
  await attack(`export of ${BIG_RECORDS} big records (×3 at once)`, async () =>
    summary(
      await Promise.all(
        Array.from({ length: 3 }, () =>
          call(`${offchain}/api/v1/subnames/export?parentName=${PARENT}`, { headers: key }),
        ),
      ),
    ),
  );
  await attack('gateway multicall of 2,300 text() calls', async () => {
    const keys = Array.from({ length: 2300 }, (_, i) => `key${i}`);
    const data = multicallData(`alice.${PARENT}`, keys);
    const sender = stack.ctx.contracts.offchainResolver;
    return summary([await call(`${offchain}/api/v1/gateway`, json({ sender, data }))]);
  });
  await attack('bulk with Content-Length 430,000,000 and no key', async () =>
    summary([await headersOnly(`${offchain}/api/v1/subnames/bulk`, 430_000_000)]),
  );
  await attack(`webhooks to ${SSRF_URLS.length} special-purpose address forms`, async () =>
    summary(
      await Promise.all(
        SSRF_URLS.map((url) =>
          call(`${offchain}/api/v1/webhooks`, json({ url, events: ['subname.created'] }, key)),
        ),
      ),
    ),
  );
  await attack('gateway flood from 48 addresses (10 s), then a lookup', async () => {
    const sender = stack.ctx.contracts.offchainResolver;
    const until = Date.now() + 10_000;
    const floods = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        floodFrom(`127.0.0.${i + 2}`, `${offchain}/api/v1/gateway/${sender}/0xdeadbeef.json`, until),
      ),
    );
    const flood = floods.flat().map((status) => ({ status, bytes: 0 }));
    const lookup = await call(
      `${offchain}/api/v1/gateway/${sender}/${multicallData(`alice.${PARENT}`, ['avatar'])}.json`,
    );
    const resolved = await call(`${stack.service('resolver').url}/ens/v2/profile/alice.${PARENT}`);
    return `flood ${summary(flood).split(';')[0]}; lookup ${lookup.status}, resolver-svc ${resolved.status}`;
  });
  return rows;
}

async function metadataAttacks(stack: BenchStack): Promise<Row[]> {
  const metadata = stack.service('metadata').url;
  const avatar = (name: string, query = '') => call(`${metadata}/sepolia/avatar/${name}${query}`);
  const rows: Row[] = [];
  const attack = (name: string, run: () => Promise<string>) =>
    measure(stack, 'metadata', name, run).then((row) => rows.push(row));

  await attack('SVG feTurbulence avatar, width 2048 png and 8 widths png', async () => {
    const answers = [await avatar('turbulence.eth', '?width=2048&format=png')];
    for (const width of TRANSFORM_SIZES.slice(-8)) {
      answers.push(await avatar('turbulence.eth', `?width=${width}&format=png`));
    }
    return summary(answers);
  });
  await attack(`${BOMBS} WebP avatars of 6320×6320 px at once, and an ordinary avatar`, async () => {
    const bombs = Promise.all(Array.from({ length: BOMBS }, (_, i) => avatar(`bomb${i}.eth`)));
    const started = performance.now();
    const plain = await avatar('plain.eth', '?width=64');
    const plainMs = performance.now() - started;
    return `${summary(await bombs)}; ordinary ${plain.status} in ${plainMs.toFixed(0)} ms`;
  });
  await attack('NFT avatar whose metadata is 10 MB of nested JSON', async () =>
    summary([await avatar('deepnft.eth'), await avatar('deepnft.eth', '/meta')]),
  );
  await attack('NFT tokenURI: string length 2^256−1, invalid UTF-8 (avatar, meta, image.png)', async () => {
    const card = await call(
      `${metadata}/metadata/network/${stack.ctx.chainId}/token/${tokenIdFromNamehash(namehash('endless.eth'))}/image.png`,
    );
    return summary([
      await avatar('endless.eth'),
      await avatar('endless.eth', '/meta'),
      await avatar('notutf8.eth'),
      await avatar('notutf8.eth', '/meta'),
      card,
    ]);
  });
  await attack(`avatars at ${SSRF_URLS.length} special-purpose address forms`, async () =>
    summary(await Promise.all(SSRF_URLS.map((_, i) => avatar(`ssrf${i}.eth`)))),
  );
  return rows;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/**
 * One ordinary request of each kind the attacks use, before the baseline: what a service builds on first use (code
 * compiled, tables loaded, pools opened) is part of a running service, not something an attack left behind.
 */
async function warmUp(stack: BenchStack): Promise<void> {
  const url = (key: Parameters<BenchStack['service']>[0]) => stack.service(key).url;
  const answers = await Promise.all([
    call(`${url('resolver')}/ens/v2/profile/alice.${PARENT}`),
    call(`${url('offchain')}/api/v1/subnames/alice.${PARENT}`),
    call(`${url('offchain')}/api/v1/subnames/search`, json({ parentName: PARENT, size: 10 })),
    call(`${url('mint')}/api/v1/listings/sepolia/mint.eth`),
    call(`${url('metadata')}/sepolia/avatar/plain.eth`),
  ]);
  if (answers.some((answer) => answer.status !== 200))
    throw new Error(`a warm-up request failed: ${answers.map((a) => a.status).join(', ')}`);
}

async function main(): Promise<void> {
  const files = await fileServer();
  const stack = await startBenchStack({
    run: RUN,
    basePort: 3401,
    envOf: { metadata: { IMAGE_FETCH_ALLOWED_ORIGINS: files.origin } },
    seed: (ens, owner) => seedNames(ens, owner, files),
  });
  try {
    const pids = stack.running.map((s) => [s.module.name, s.child.pid ?? 0] as const);
    await warmUp(stack);
    await settle();
    const baseline = new Map(pids.map(([name, pid]) => [name, rssMb(pid)]));
    const offchainRows = await offchainAttacks(stack);
    await settle();
    const offchainAfter = rssMb(stack.service('offchain').child.pid ?? 0);
    const metadataRows = await metadataAttacks(stack);
    await settle();
    const metadataAfter = rssMb(stack.service('metadata').child.pid ?? 0);
    const rows = [...offchainRows, ...metadataRows];
    console.log(
      `Abuse (issue 20) on ${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, built bundles; ` +
        `RSS after: ${SETTLE_MS / 1000} s after the attacked service's group`,
    );
    console.log(
      markdownTable(
        [
          'attack',
          'service',
          'answer (status; largest answer)',
          'time (s)',
          'peak RSS growth (MB)',
          'RSS after (MB)',
        ],
        rows.map((r) => [
          r.attack,
          r.service,
          r.answer,
          r.seconds.toFixed(2),
          r.peakGrowthMb.toFixed(0),
          (r.service === 'offchain' ? offchainAfter : metadataAfter).toFixed(0),
        ]),
      ),
    );
    console.log(
      markdownTable(
        ['service', 'RSS at start (MB)', 'RSS after the run (MB)', 'change'],
        pids.map(([name, pid]) => {
          const start = baseline.get(name) ?? Number.NaN;
          const end = rssMb(pid);
          return [name, start.toFixed(0), end.toFixed(0), `${(((end - start) / start) * 100).toFixed(0)}%`];
        }),
      ),
    );
  } finally {
    await stack.stop();
    files.server.closeAllConnections();
    files.server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
