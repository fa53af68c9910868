import { fork, execSync } from 'node:child_process';
import { join } from 'node:path';
import { getAddress } from 'ethers';
import { Client } from 'pg';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
const NAME = 'alice.perf.eth';
const RESOLVER = getAddress('0x' + '0f'.repeat(20));
const inner = resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(NAME)]);
const data = resolverInterface.encodeFunctionData('resolve', [dnsEncode(NAME), inner]);
const PATH = `/api/v1/gateway/${RESOLVER}/${data}.json`;
const SEED = { parentName: 'perf.eth', label: 'alice', owner: getAddress('0x' + '11'.repeat(20)),
  texts: [{ key: 'avatar', value: 'https://img.example/alice.png' }], addresses: [{ coin: 60, value: getAddress('0x' + '11'.repeat(20)) }] };
(async () => {
  const schema = `prof_${Date.now()}`;
  const child = fork(join(__dirname, 'throughput-server.ts'), ['offchain'], {
    execArgv: ['-r', 'esbuild-register', '-r', '/tmp/prof/exit-on-term.js', '--cpu-prof', '--cpu-prof-dir=/tmp/prof/out'],
    env: { ...process.env, BENCH_SERVICE_ENV: JSON.stringify({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000000', GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000', GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: '100000000', GATEWAY_SIGNER_KEY: '0x' + '42'.repeat(32), ANSWER_CACHE_SECONDS: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DATABASE_SCHEMA: schema, DATABASE_POOL_MAX: '10' }), BENCH_SEED: JSON.stringify(SEED) },
  });
  const port = await new Promise<number>((r) => child.once('message', (m: { port: number }) => r(m.port)));
  const url = `http://127.0.0.1:${port}${PATH}`;
  console.log(execSync(`wrk -t1 -c32 -d5s '${url}'`).toString().split('\n').filter((l) => /Requests\/sec/.test(l)).join());
  console.log(execSync(`wrk -t1 -c32 -d15s '${url}'`).toString().split('\n').filter((l) => /Requests\/sec/.test(l)).join());
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await c.connect(); await c.query(`DROP SCHEMA ${schema} CASCADE`); await c.end();
})();
