/**
 * `npm run deploy:proven-l2-resolver`: deploys, on the L1 a real L2 settles on, our DisputeGameFinder (it reads the
 * AggregateVerifier games Base posts since Azul and the older fault-dispute games; `--game-finder <address>` uses an
 * already deployed one instead), the Unruggable Gateways OPFaultVerifier for that L2's dispute games with it
 * (L2_FAULT_PROOF_ROLLUPS' AnchorStateRegistry; by default the respected game type, games at least an hour old) and a
 * ProvenL2Resolver for one of our L2Registry contracts on it. Not run by any test or by `npm start` (only 127.0.0.1
 * is reachable here); the verifier's choice of game, with our finder and the package's, is tested against simulated
 * games (libs/contracts/test/op-fault-games.test.ts). Usage:
 *
 *   DEPLOYER_PRIVATE_KEY=0x… npm run deploy:proven-l2-resolver -- --network base|base-sepolia \
 *     --l1 <Ethereum or Sepolia RPC URL> --registry <L2Registry on the L2> --gateway <proof URL> \
 *     [--game-finder <address>] [--window-seconds 10800] [--game-types 0,1] [--min-age-seconds 3600]
 *
 * `--gateway` is the resolver's prover URL (offchain-svc's `https://…/api/v1/proofs/<network>`, or anyone's
 * `npm run prover`); the owner (the deployer) may change it later with `setGatewayUrls`. `--window-seconds`: how
 * much older than the newest acceptable game a proof's game may be (default 3 hours: Base created a game about
 * every hour before Azul and every 20 minutes or so since, so a prover a game or more behind, or a proposal late, is
 * still answered). `--game-types` (default: the registry's respected game type) and `--min-age-seconds` (default
 * 3600) are the games the verifier accepts: give the provers the same (`<L2>_PROOF_GAME_TYPES`,
 * `<L2>_PROOF_MIN_AGE_SECONDS`), and the printed `gameFinder` (`<L2>_PROOF_GAME_FINDER`, `npm run prover --
 * --game-finder`). Prints the addresses; the parent then sets the resolver in the ENS registry.
 */
import { parseArgs } from 'node:util';
import { JsonRpcProvider, NonceManager, Wallet, isAddress } from 'ethers';
import { envPrefix, l2ProofRollupsFromEnv, l2ProofsEnvSchema } from '@nrp/chain';
import {
  deployContract,
  deployOpFaultVerifier,
  disputeGameFinderArtifact,
  provenL2ResolverArtifact,
} from '@nrp/contracts';
import { L2_NETWORK_CHAIN_IDS } from '@nrp/ens';

/** Default `--window-seconds`: three of Base's hourly games before Azul (nine since). */
const WINDOW_SECONDS = 3 * 3600;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      network: { type: 'string' },
      l1: { type: 'string' },
      registry: { type: 'string' },
      gateway: { type: 'string' },
      'game-finder': { type: 'string' },
      'window-seconds': { type: 'string', default: String(WINDOW_SECONDS) },
      'game-types': { type: 'string' },
      'min-age-seconds': { type: 'string' },
    },
    strict: true,
  });
  const network = values.network;
  if (network !== 'base' && network !== 'base-sepolia') throw new Error('--network is base or base-sepolia');
  if (!values.l1) throw new Error('give --l1 <L1 RPC URL>');
  if (!values.registry || !isAddress(values.registry))
    throw new Error('give --registry <L2Registry address>');
  if (!values.gateway) throw new Error('give --gateway <prover URL>');
  if (values['game-finder'] !== undefined && !isAddress(values['game-finder']))
    throw new Error('--game-finder is the address of a deployed DisputeGameFinder');
  const key = process.env.DEPLOYER_PRIVATE_KEY;
  if (!key) throw new Error('set DEPLOYER_PRIVATE_KEY');
  const windowSeconds = Number(values['window-seconds']);
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0)
    throw new Error('--window-seconds is a positive integer');

  const rollup = l2ProofRollupsFromEnv(
    l2ProofsEnvSchema.parse({
      [`${envPrefix(network)}_PROOF_GAME_TYPES`]: values['game-types'],
      [`${envPrefix(network)}_PROOF_MIN_AGE_SECONDS`]: values['min-age-seconds'],
    }),
  )[network];
  if (rollup.kind !== 'op-fault') throw new Error(`${network} is not proven by fault-dispute games`);
  const provider = new JsonRpcProvider(values.l1);
  try {
    const signer = new NonceManager(new Wallet(key, provider));
    const gameFinder =
      values['game-finder'] ?? (await (await deployContract(signer, disputeGameFinderArtifact)).getAddress());
    const { verifier, hooks, gatewayVM } = await deployOpFaultVerifier(signer, {
      anchorStateRegistry: rollup.anchorStateRegistry,
      gameFinder,
      minAgeSec: rollup.minAgeSec,
      gameTypes: rollup.gameTypes,
      windowSeconds,
      gatewayUrls: [values.gateway],
    });
    const resolver = await deployContract(signer, provenL2ResolverArtifact, [
      verifier,
      L2_NETWORK_CHAIN_IDS[network],
      values.registry,
      [values.gateway],
    ]);
    console.log(
      JSON.stringify(
        {
          network,
          gameFinder,
          verifier,
          hooks,
          gatewayVM,
          provenL2Resolver: await resolver.getAddress(),
          windowSeconds,
        },
        null,
        2,
      ),
    );
  } finally {
    provider.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
