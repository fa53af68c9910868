/**
 * The prover image in a real container engine, as someone running their own prover does (host network, read-only
 * root filesystem, a tmpfs /tmp, the image's non-root user), against the dev stack's two anvils: started without
 * arguments it stops with one line; with the L1 and L2 RPCs and the dev rollup's addresses it refuses what is not a
 * lookup, and viem, given only the L1 RPC, resolves a name under `proven.eth` with every EIP-3668 request sent to
 * the container instead of the URL the resolver names (the answers are checked on L1 by the resolver's verifier). A
 * record then set on the L2 is answered once the next root is posted; SIGTERM exits 0. Part of
 * `scripts/images-smoke.ts`; alone, against a running `npm start` (its `.data/dev-stack.json`):
 *
 *   node -r esbuild-register scripts/prover-image-smoke.ts <tag>
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { sepolia } from 'viem/chains';
import { namehash } from '@nrp/ens';
import { freePort, until, type DevStackFile } from '@nrp/testkit';
import {
  checkBareRun,
  checkImage,
  checkSigterm,
  docker,
  exitWithImageChecks,
  imageChecks,
  removeContainer,
  startContainer,
} from './docker';

/** The dev stack's proven L2 parent, as the prover and this test need it. */
export interface ProvenDevStack {
  l1RpcUrl: string;
  l2RpcUrl: string;
  /** The dev rollup on L1 (`--portal`, `--finder`). */
  optimismPortal: string;
  outputFinder: string;
  /** The L2Registry of `proven.eth`. */
  registry: string;
  /** A name under `proven.eth` and its holder's key: the test sets a text record of it on the L2. */
  name: string;
  holderKey: string;
  /** Posts the L2's next output root on L1; omitted, the stack's own proposer does (npm start: every 6 s). */
  propose?: () => Promise<unknown>;
}

const registryAbi = parseAbi([
  'function setText(bytes32 node, string key, string value)',
  'function text(bytes32 node, string key) view returns (string)',
]);

/** The checks of the prover image: one line each, and whether any failed. */
export async function smokeProverImage(
  image: string,
  stack: ProvenDevStack,
): Promise<{ lines: string[]; failed: boolean }> {
  const checks = imageChecks();
  const { check } = checks;
  await checkBareRun(checks, 'no arguments', image, [], 'give --l1');

  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const name = 'nrp-smoke-prover';
  await startContainer(
    name,
    image,
    {},
    [],
    [
      ...['--l1', stack.l1RpcUrl, '--l2', stack.l2RpcUrl],
      ...['--portal', stack.optimismPortal, '--finder', stack.outputFinder, '--l1-block', 'latest'],
      ...['--port', String(port)],
    ],
  );
  try {
    await until(
      async () => (await docker('logs', name)).includes('prover listening on'),
      'the prover',
      30_000,
    );
    await checkImage(checks, image, name);

    const notLookup = await fetch(url, { method: 'POST', body: '{}' });
    check('not a lookup', notLookup.status === 400, `POST {} ${notLookup.status} ${await notLookup.text()}`);

    // Every lookup goes to the container, whatever URL the resolver names: only the container answers here.
    const named = new Set<string>();
    let sent = 0;
    const l1 = createPublicClient({
      chain: sepolia,
      transport: http(stack.l1RpcUrl),
      ccipRead: {
        request: async ({ data, sender, urls }) => {
          for (const u of urls) named.add(u);
          sent += 1;
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ data, sender }),
          });
          if (!res.ok) throw new Error(`the prover answered ${res.status}: ${await res.text()}`);
          return ((await res.json()) as { data: Hex }).data;
        },
      },
    });
    const holder = privateKeyToAccount(stack.holderKey as Hex);
    const node = namehash(stack.name) as Hex;
    const l2 = createPublicClient({ transport: http(stack.l2RpcUrl) });
    const onL2 = await l2.readContract({
      address: stack.registry as Hex,
      abi: registryAbi,
      functionName: 'text',
      args: [node, 'description'],
    });
    const address = await getEnsAddress(l1, { name: stack.name, strict: true });
    const description = await getEnsText(l1, { name: stack.name, key: 'description', strict: true });
    check(
      'resolve',
      address === holder.address && description === onL2 && sent >= 2,
      `${stack.name}: addr ${address}, description "${description}" (${sent} lookups sent to the container; the resolver names ${[...named].join(', ')})`,
    );

    const value = `https://prover-smoke.example/${port}`;
    const hash = await createWalletClient({ account: holder, transport: http(stack.l2RpcUrl) }).writeContract(
      {
        address: stack.registry as Hex,
        abi: registryAbi,
        functionName: 'setText',
        args: [node, 'url', value],
        chain: null,
      },
    );
    await l2.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    const changedAt = Date.now();
    await stack.propose?.();
    let answered = false;
    try {
      await until(
        async () => (await getEnsText(l1, { name: stack.name, key: 'url', strict: true })) === value,
        `the url record through the prover`,
        60_000,
      );
      answered = true;
    } catch {
      // reported below
    }
    check(
      'L2 change',
      answered,
      `url set on the L2, proven answer ${answered ? `after ${((Date.now() - changedAt) / 1000).toFixed(1)} s` : 'not within 60 s'} (${stack.propose ? 'root posted at once' : 'the stack’s proposer'})`,
    );

    await checkSigterm(checks, name);
  } finally {
    await removeContainer(name);
  }
  return checks;
}

if (require.main === module) {
  const tag = process.argv[2] ?? 'dev';
  const file = path.resolve(process.env.DATA_DIR ?? '.data', 'dev-stack.json');
  const stack = JSON.parse(readFileSync(file, 'utf8')) as DevStackFile;
  const contract = (key: string) => {
    const address = stack.contracts[key];
    if (!address) throw new Error(`${file} has no contracts.${key}: is npm start running?`);
    return address;
  };
  const run = smokeProverImage(`nrp/prover:${tag}`, {
    l1RpcUrl: stack.chains.sepolia.rpcUrl,
    l2RpcUrl: stack.chains['base-sepolia'].rpcUrl,
    optimismPortal: contract('optimismPortal'),
    outputFinder: contract('l2OutputFinder'),
    registry: contract('provenL2Registry'),
    name: stack.names.provenL2Subname ?? 'demo.proven.eth',
    holderKey: stack.accounts[0]?.privateKey ?? '',
  });
  exitWithImageChecks(`prover (nrp/prover:${tag}):`, run);
}
