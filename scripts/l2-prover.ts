/**
 * `npm run prover`: an EIP-3668 prover for ProvenL2Resolver that anyone can run against any L2 RPC, so proven L2
 * names keep resolving without our gateway (its answers are proofs the L1 checks: it holds no key and needs no
 * trust). Lookups are POSTed as `{ "sender", "data" }` JSON to any path and answered `{ "data" }`. Usage:
 *
 *   npm run prover -- --l1 <L1 RPC> --l2 <L2 RPC> --network base|base-sepolia --game-finder <address> \
 *     [--game-types 0,1] [--min-age-seconds 3600] [--port 8790]
 *   npm run prover -- --l1 <L1 RPC> --l2 <L2 RPC> --portal <OptimismPortal> --finder <OPOutputFinder> \
 *     [--l1-block latest|finalized] [--port 8790]
 *
 * `--network` proves against the dispute games Base posts (L2_FAULT_PROOF_ROLLUPS), as `--game-finder` picks them
 * (the finder the resolver's verifier was deployed with, which `npm run deploy:proven-l2-resolver` printed: for Base
 * since Azul, our DisputeGameFinder; default: the package's OPFaultGameFinder, which cannot read Base's games since
 * Azul), those of `--game-types` (default: the registry's respected type) at least `--min-age-seconds` old (default
 * 3600): the games the resolver's verifier was deployed to accept, or it refuses the proofs. `--portal` and
 * `--finder` against an L2OutputOracle (the dev stack's: `contracts.optimismPortal` and `contracts.l2OutputFinder` in
 * `.data/dev-stack.json`). Also `--host` (default 127.0.0.1) and `--poll-ms` (how often the latest posted root is
 * read, default 1000). On SIGTERM or SIGINT it stops accepting, answers the lookups in flight (at most 5 s) and exits
 * 0. Its image: the `prover` target of docker/Dockerfile.
 */
import { parseArgs } from 'node:util';
import { JsonRpcProvider } from 'ethers';
import {
  createL2Prover,
  envPrefix,
  l2ProofRollupsFromEnv,
  l2ProofsEnvSchema,
  startL2ProverServer,
  type L2ProofRollupConfig,
} from '@nrp/chain';

function rollupFromArgs(values: Record<string, string | undefined>): L2ProofRollupConfig {
  const network = values.network;
  if (network !== undefined) {
    if (network !== 'base' && network !== 'base-sepolia')
      throw new Error('--network is base or base-sepolia');
    // As offchain-svc's prover and the deploy script read them: one definition of the accepted games.
    const games = l2ProofsEnvSchema.safeParse({
      [`${envPrefix(network)}_PROOF_GAME_FINDER`]: values['game-finder'],
      [`${envPrefix(network)}_PROOF_GAME_TYPES`]: values['game-types'],
      [`${envPrefix(network)}_PROOF_MIN_AGE_SECONDS`]: values['min-age-seconds'],
    });
    if (!games.success)
      throw new Error(
        '--game-finder is an address, --game-types comma-separated game type numbers, --min-age-seconds whole seconds',
      );
    return l2ProofRollupsFromEnv(games.data)[network];
  }
  if (
    values['game-finder'] !== undefined ||
    values['game-types'] !== undefined ||
    values['min-age-seconds'] !== undefined
  )
    throw new Error('--game-finder, --game-types and --min-age-seconds go with --network');
  if (!values.portal || !values.finder) throw new Error('give --network, or --portal and --finder');
  const l1BlockTag = values['l1-block'] ?? 'finalized';
  if (l1BlockTag !== 'latest' && l1BlockTag !== 'finalized')
    throw new Error('--l1-block is latest or finalized');
  return {
    kind: 'op-output-oracle',
    optimismPortal: values.portal,
    outputFinder: values.finder,
    minAgeSec: 0,
    l1BlockTag,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      l1: { type: 'string' },
      l2: { type: 'string' },
      network: { type: 'string' },
      'game-finder': { type: 'string' },
      'game-types': { type: 'string' },
      'min-age-seconds': { type: 'string' },
      portal: { type: 'string' },
      finder: { type: 'string' },
      'l1-block': { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8790' },
      'poll-ms': { type: 'string', default: '1000' },
    },
    strict: true,
  });
  if (!values.l1 || !values.l2) throw new Error('give --l1 <L1 RPC URL> and --l2 <L2 RPC URL>');
  const l1 = new JsonRpcProvider(values.l1, undefined, { staticNetwork: true });
  const l2 = new JsonRpcProvider(values.l2, undefined, { staticNetwork: true });
  const prover = createL2Prover({
    l1,
    l2,
    rollup: rollupFromArgs(values),
    commitPollMs: Number(values['poll-ms']),
  });
  const server = await startL2ProverServer(prover, {
    host: values.host,
    port: Number(values.port),
    onError: (err) => console.error(err),
  });
  console.log(`prover listening on ${server.url}`);
  const stop = () => {
    void server.close().then(() => {
      l1.destroy();
      l2.destroy();
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
