/**
 * The smoke test of `scripts/images.sh`: the four service images in a real container engine, as operators run them
 * (and the console image: `console-image-smoke.ts`; the prover's, against the same chains: `prover-image-smoke.ts`).
 * anvil with the dev chain (the same ENS deployment, demo names and service hooks as `npm start`), an s3rver, and
 * the machine's PostgreSQL and Redis; every container on the host network with a read-only root filesystem and a
 * tmpfs /tmp, as the image's non-root user. Each must answer `/ready`, serve one real request of its own, and exit 0
 * after draining on SIGTERM; an image started without its required production variables must stop with one line.
 * Prints one table; exits 1 when a check fails.
 *
 *   node -r esbuild-register scripts/images-smoke.ts <tag>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { AbiCoder } from 'ethers';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import { freePort, startS3Server, type DevRollup } from '@nrp/testkit';
import { DEV_PROVEN_L2_SUBNAME } from '../apps/mint-svc/dev/dev-stack';
import { smokeConsoleImage } from './console-image-smoke';
import { smokeProverImage } from './prover-image-smoke';
import { docker, dockerRun, removeContainer, startContainer } from './docker';
import {
  prepareDevChain,
  services,
  startDevChains,
  startL2BlockTime,
  stopDevChains,
  type ServiceModule,
} from './dev-stack';

const tag = process.argv[2] ?? 'dev';
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** A database of its own, created and dropped here, so nothing in it is shared with tests running meanwhile. */
const smokeDatabase = 'nrp_images_smoke';
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${smokeDatabase}` }).href;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const host = '127.0.0.1';

type Key = ServiceModule['key'];

interface Row {
  service: string;
  addedMb: string;
  user: string;
  ready: string;
  request: string;
  sigterm: string;
  missingVariable: string;
  metrics: string;
}

async function waitReady(url: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/ready`);
      if (res.ok) return `200 ${JSON.stringify(((await res.json()) as { checks: unknown }).checks)}`;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`not ready after ${timeoutMs} ms: ${last}`);
}

/** One real request per service, checked on what it answers. */
async function realRequest(key: Key, url: string, minter: string): Promise<string> {
  const check = async (res: Response, what: string, ok: (body: Buffer) => boolean) => {
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || !ok(body))
      throw new Error(`${what}: ${res.status} ${body.toString('utf8', 0, 300)}`);
    return `${what} 200 (${res.headers.get('content-type')?.split(';')[0]}, ${body.length} B)`;
  };
  const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  switch (key) {
    case 'resolver':
      return check(await fetch(`${url}/ens/v2/profile/demo.eth`), 'GET profile demo.eth', (body) =>
        JSON.stringify(json(body)).includes('The demo name of the Name Records Platform'),
      );
    case 'offchain': {
      // A CCIP-Read lookup: the database read and the native signer (a runtime package of the image).
      const name = 'alice.offchain.eth';
      const data = resolverInterface.encodeFunctionData('resolve', [
        dnsEncode(name),
        resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(name)]),
      ]);
      const sender = '0x000000000000000000000000000000000000dead';
      return check(
        await fetch(`${url}/api/v1/gateway/${sender}/${data}.json`),
        'GET gateway addr alice.offchain.eth',
        (body) => {
          const [result, , signature] = AbiCoder.defaultAbiCoder().decode(
            ['bytes', 'uint64', 'bytes'],
            String(json(body).data),
          ) as unknown as [string, bigint, string];
          return result.length === 66 && /^0x[0-9a-f]{130}$/.test(signature);
        },
      );
    }
    case 'mint':
      return check(
        await fetch(
          `${url}/api/v1/mint/estimate?parentName=mint.eth&label=hello&minterAddress=${minter}&isTestnet=true`,
        ),
        'GET estimate hello.mint.eth',
        (body) => JSON.stringify(json(body)).length > 2,
      );
    case 'metadata': {
      const tokenId = BigInt(namehash('wrapped.eth')).toString();
      return check(
        await fetch(`${url}/metadata/network/11155111/token/${tokenId}/image.png`),
        'GET token image wrapped.eth',
        (body) => body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
      );
    }
  }
}

const DOMAIN_SAMPLES = [
  'rpc_call_duration_seconds_count',
  'cache_lookups_total',
  'ccip_gateway_answers_total',
  'pending_uploads',
  'mint_signatures_total',
];

/** The domain metrics a container has observed so far, each summed over its labels. */
async function domainMetrics(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const totals = DOMAIN_SAMPLES.map((name) => {
    const values = text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`))
      .map((line) => Number(line.split(' ').pop()));
    return values.length > 0 ? `${name} ${values.reduce((a, b) => a + b, 0)}` : undefined;
  });
  return totals.filter(Boolean).join(', ') || 'none observed';
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'nrp-images-'));
  const chains = await startDevChains();
  const anvil = chains.l1;
  const s3 = await startS3Server({ bucket: 'name-records-images' });
  const admin = new Pool({ connectionString: adminUrl, max: 1 });
  const dropDatabase = () => admin.query(`DROP DATABASE IF EXISTS ${smokeDatabase} WITH (FORCE)`);
  const containers: string[] = [];
  const rows: Row[] = [];
  let consoleLines: string[] = [];
  let proverLines: string[] = [];
  let rollup: DevRollup | undefined;
  let failed = false;
  try {
    await dropDatabase();
    await admin.query(`CREATE DATABASE ${smokeDatabase}`);
    const ports = new Map<Key, number>();
    for (const service of services) ports.set(service.key, await freePort());
    const urls = Object.fromEntries(
      services.map((s) => [s.key, `http://${host}:${ports.get(s.key)}`]),
    ) as Record<Key, string>;
    const { ctx, contributions, provenL2 } = await prepareDevChain(chains, urls, dataDir, host);
    rollup = provenL2.rollup;
    const baseSize = Number(await docker('image', 'inspect', '-f', '{{.Size}}', 'node:24-bookworm-slim'));

    for (const service of services) {
      const image = `nrp/${service.name}:${tag}`;
      const row: Row = {
        service: service.name,
        addedMb: (
          (Number(await docker('image', 'inspect', '-f', '{{.Size}}', image)) - baseSize) /
          1e6
        ).toFixed(0),
        user: '',
        ready: '',
        request: '',
        sigterm: '',
        missingVariable: '',
        metrics: '',
      };
      rows.push(row);
      // Bad input: the image alone, without variables, in production mode (the image's NODE_ENV). resolver-svc
      // requires none: it reads public defaults and holds no data.
      if (service.key === 'resolver') {
        row.missingVariable = 'none required';
      } else {
        const bare = await dockerRun(['--rm', '--network', 'host', '--read-only', '-e', 'PORT=0', image]);
        const lines = bare.stderr.trim().split('\n').filter(Boolean);
        const ok = bare.code === 1 && lines.length === 1 && lines[0]?.startsWith('Invalid configuration: ');
        row.missingVariable = ok
          ? `exit 1: ${lines[0]}`
          : `FAILED: exit ${bare.code}, ${lines.length} lines: ${bare.stderr.slice(0, 300)}`;
        if (!ok) failed = true;
      }

      const {
        PGLITE_DATA_DIR: _pglite,
        BLOB_DIR: _blobs,
        ...hookEnv
      } = {
        ...ctx.env,
        ...contributions.get(service)?.env,
      };
      const env: Record<string, string> = {
        ...hookEnv,
        PORT: String(ports.get(service.key)),
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        ...(service.key === 'metadata'
          ? {
              S3_BUCKET: s3.bucket,
              S3_ENDPOINT: s3.endpoint,
              S3_REGION: s3.region,
              S3_ACCESS_KEY_ID: s3.accessKeyId,
              S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
            }
          : {}),
      };
      const mounts = env.LISTINGS_FILE ? ['-v', `${env.LISTINGS_FILE}:${env.LISTINGS_FILE}:ro`] : [];
      const name = `nrp-smoke-${service.name}`;
      await startContainer(name, image, env, mounts);
      containers.push(name);
    }

    const minter = anvil.accounts[1]?.address ?? '';
    for (const [i, service] of services.entries()) {
      const row = rows[i] as Row;
      const name = `nrp-smoke-${service.name}`;
      try {
        row.ready = await waitReady(urls[service.key], 60_000);
      } catch (err) {
        row.ready = `FAILED: ${err instanceof Error ? err.message : String(err)}`;
        failed = true;
        row.ready += ` | logs: ${(await docker('logs', '--tail', '5', name)).slice(0, 500)}`;
      }
      const uid = await docker('exec', name, 'id', '-u');
      const readOnly = await docker('inspect', '-f', '{{.HostConfig.ReadonlyRootfs}}', name);
      row.user = `uid ${uid}, read-only ${readOnly}`;
      if (uid === '0' || readOnly !== 'true') failed = true;
    }
    // What the hooks do once the services listen: the offchain demo subnames, created through the container's API.
    for (const contribution of contributions.values()) await contribution.afterStart?.();
    await startL2BlockTime(chains);
    for (const [i, service] of services.entries()) {
      const row = rows[i] as Row;
      try {
        row.request = await realRequest(service.key, urls[service.key], minter);
        row.metrics = await domainMetrics(urls[service.key]);
      } catch (err) {
        row.request = `FAILED: ${err instanceof Error ? err.message : String(err)}`;
        failed = true;
      }
    }
    for (const [i, service] of services.entries()) {
      const row = rows[i] as Row;
      const name = `nrp-smoke-${service.name}`;
      await docker('kill', '--signal', 'TERM', name);
      const code = await docker('wait', name);
      const logs = await docker('logs', name);
      const drained = logs.includes('"msg":"draining"') && logs.includes('"msg":"stopped"');
      row.sigterm = `exit ${code}${drained ? ', drained' : ', NOT drained'}`;
      if (code !== '0' || !drained) failed = true;
    }
    const consoleSmoke = await smokeConsoleImage(`nrp/console:${tag}`, urls);
    consoleLines = consoleSmoke.lines;
    if (consoleSmoke.failed) failed = true;
    // demo.proven.eth was minted on the L2 by the hooks' afterStart: post its root, then prove it from the image.
    const propose = () => provenL2.rollup.propose();
    await propose();
    const proverSmoke = await smokeProverImage(`nrp/prover:${tag}`, {
      l1RpcUrl: anvil.rpcUrl,
      l2RpcUrl: chains.l2.rpcUrl,
      optimismPortal: provenL2.rollup.optimismPortal,
      outputFinder: provenL2.rollup.outputFinder,
      registry: provenL2.registry,
      name: DEV_PROVEN_L2_SUBNAME,
      holderKey: anvil.accounts[0]?.privateKey ?? '',
      propose,
    });
    proverLines = proverSmoke.lines;
    if (proverSmoke.failed) failed = true;
  } finally {
    await Promise.all(containers.map(removeContainer));
    rollup?.stop();
    await dropDatabase().catch(() => undefined);
    await admin.end();
    await s3.stop();
    await stopDevChains(chains);
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log(`images nrp/<service>:${tag} on node:24-bookworm-slim; size = image minus base`);
  for (const row of rows) {
    console.log(
      [
        `${row.service}: ${row.addedMb} MB above base, ${row.user}`,
        `  /ready         ${row.ready}`,
        `  request        ${row.request}`,
        `  metrics        ${row.metrics}`,
        `  SIGTERM        ${row.sigterm}`,
        `  no variables   ${row.missingVariable}`,
      ].join('\n'),
    );
  }
  console.log([`console (nrp/console:${tag}):`, ...consoleLines].join('\n'));
  console.log([`prover (nrp/prover:${tag}):`, ...proverLines].join('\n'));
  if (failed) {
    console.error('images smoke test: FAILED');
    process.exit(1);
  }
  console.log('images smoke test: all checks passed');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
