/**
 * Which fault-dispute game, and so which L2 root, a proven lookup on Base would use: the package's OPFaultGameFinder
 * (deployed from its artifact, as our OPFaultVerifier reads it on L1) and the prover's OPFaultRollup
 * (`createL2ProofRollup` with an op-fault configuration, as L2_FAULT_PROOF_ROLLUPS gives it) against simulated games
 * on anvil: an AnchorStateRegistry / DisputeGameFactory / FaultDisputeGame stand-in written from the OP
 * specification, with games of several types, ages and outcomes whose roots are the L2 anvil's real output roots.
 */
import { AbiCoder, Contract, JsonRpcProvider, NonceManager, Wallet, id } from 'ethers';
import { OPFaultRollup } from '@unruggable/gateways';
import { createL2ProofRollup, type L2ProofRollupConfig } from '@nrp/chain';
import { L2_CHAIN_ID, l2OutputRootAt, startAnvil, type AnvilNode } from '@nrp/testkit';
import {
  anchorStateRegistryTestDoubleArtifact,
  deployContract,
  deployOpFaultVerifier,
  disputeGameFactoryTestDoubleArtifact,
  faultDisputeGameTestDoubleArtifact,
  unruggableArtifact,
} from '../src';

const MIN_AGE_SEC = 3600;
const RESPECTED = 0; // CANNON, the game type Base's AnchorStateRegistry respects
const PERMISSIONED = 1;
const DEFENDER_WINS = 2;
const CHALLENGER_WINS = 1;
const coder = AbiCoder.defaultAbiCoder();

interface Game {
  index: bigint;
  l2BlockNumber: bigint;
  rootClaim: string;
  contract: Contract;
}

describe('OP fault-dispute games: the game and root the finder, the verifier and the prover choose', () => {
  let l1: AnvilNode;
  let l2: AnvilNode;
  let l1Provider: JsonRpcProvider;
  let l2Provider: JsonRpcProvider;
  let signer: NonceManager;
  let registry: Contract;
  let factory: Contract;
  let finder: Contract;
  let verifier: Contract;
  const games: Game[] = [];

  const send = async (contract: Contract, fn: string, args: unknown[] = []) => {
    const tx = (await contract.getFunction(fn)(...args)) as { wait(): Promise<unknown> };
    await tx.wait();
  };

  /** Creates a game for L2 block `l2BlockNumber` claiming its real output root (or `rootClaim`). */
  async function createGame(gameType: number, l2BlockNumber: bigint, rootClaim?: string): Promise<Game> {
    const claim = rootClaim ?? (await l2OutputRootAt(l2Provider, l2BlockNumber)).outputRoot;
    await send(factory, 'create', [gameType, claim, coder.encode(['uint256'], [l2BlockNumber])]);
    const index = ((await factory.getFunction('gameCount')()) as bigint) - 1n;
    const [, , proxy] = (await factory.getFunction('gameAtIndex')(index)) as [bigint, bigint, string];
    const game = {
      index,
      l2BlockNumber,
      rootClaim: claim,
      contract: new Contract(proxy, faultDisputeGameTestDoubleArtifact.abi, signer),
    };
    games.push(game);
    return game;
  }

  const params = (minAgeSec: number, gameTypes: number[]) => [registry.target, minAgeSec, gameTypes, []];
  /** The index the on-chain finder returns for these parameters. */
  const finderChoice = (minAgeSec = MIN_AGE_SEC, gameTypes: number[] = []) =>
    finder.getFunction('findGameIndex')(params(minAgeSec, gameTypes), 0) as Promise<bigint>;

  /** The commit (game index, L2 block, root) the prover's rollup answers from. */
  async function proverChoice(minAgeSec = MIN_AGE_SEC, gameTypes: number[] = []) {
    const config: L2ProofRollupConfig = {
      kind: 'op-fault',
      anchorStateRegistry: String(registry.target),
      gameFinder: String(finder.target),
      minAgeSec,
      gameTypes,
    };
    const rollup = createL2ProofRollup({ l1: l1Provider, l2: l2Provider, rollup: config });
    if (!(rollup instanceof OPFaultRollup)) throw new Error('not an OPFaultRollup');
    // anvil has no finalized blocks to speak of: read the latest (Base's prover reads `finalized`).
    rollup.latestBlockTag = 'latest';
    const commit = await rollup.fetchCommit(await rollup.fetchLatestCommitIndex());
    return {
      index: commit.index,
      l2BlockNumber: commit.game.l2BlockNumber,
      rootClaim: commit.game.rootClaim,
    };
  }

  const summary = (game: Game | undefined) => ({
    index: game?.index,
    l2BlockNumber: game?.l2BlockNumber,
    rootClaim: game?.rootClaim,
  });

  beforeAll(async () => {
    [l1, l2] = await Promise.all([startAnvil(), startAnvil({ chainId: L2_CHAIN_ID })]);
    l1Provider = new JsonRpcProvider(l1.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    l2Provider = new JsonRpcProvider(l2.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const [deployer] = l1.accounts;
    if (!deployer) throw new Error('anvil accounts');
    signer = new NonceManager(new Wallet(deployer.privateKey, l1Provider));
    await l2Provider.send('anvil_mine', ['0x10']);

    registry = await deployContract(signer, anchorStateRegistryTestDoubleArtifact, [RESPECTED]);
    factory = new Contract(
      (await registry.getFunction('disputeGameFactory')()) as string,
      disputeGameFactoryTestDoubleArtifact.abi,
      signer,
    );
    finder = await deployContract(signer, unruggableArtifact('OPFaultGameFinder'));
    const deployed = await deployOpFaultVerifier(signer, {
      anchorStateRegistry: String(registry.target),
      gameFinder: String(finder.target),
      minAgeSec: MIN_AGE_SEC,
      gameTypes: [],
      windowSeconds: 3 * 3600,
      gatewayUrls: [],
    });
    verifier = new Contract(
      deployed.verifier,
      unruggableArtifact('OPFaultVerifier', {
        GatewayVM: deployed.gatewayVM,
      }).abi,
      l1Provider,
    );

    // Games created an hour and more ago, newest last.
    await createGame(RESPECTED, 1n); // 0: unchallenged
    const disputed = await createGame(RESPECTED, 2n); // 1: challenged, resolved for the proposer
    await send(disputed.contract, 'move');
    await send(disputed.contract, 'resolveAs', [DEFENDER_WINS]);
    await send((await createGame(RESPECTED, 3n)).contract, 'move'); // 2: challenged, in progress
    const lost = await createGame(RESPECTED, 4n); // 3: challenged, resolved for the challenger
    await send(lost.contract, 'move');
    await send(lost.contract, 'resolveAs', [CHALLENGER_WINS]);
    await createGame(PERMISSIONED, 5n); // 4: unchallenged, a game type the registry does not respect
    await send(registry, 'blacklistDisputeGame', [(await createGame(RESPECTED, 5n)).contract.target]); // 5
    await createGame(RESPECTED, 6n, id('not the L2 root of block 6')); // 6: unchallenged, a wrong root
    await send((await createGame(RESPECTED, 7n)).contract, 'challengeL2BlockNumber'); // 7
    await l1Provider.send('evm_increaseTime', [MIN_AGE_SEC + 60]);
    await l1Provider.send('evm_mine', []);
    await createGame(RESPECTED, 8n); // 8: unchallenged, too young
  });

  afterAll(async () => {
    l1Provider?.destroy();
    l2Provider?.destroy();
    await Promise.all([l1?.stop(), l2?.stop()]);
  });

  it('the finder and the verifier take the newest old-enough unchallenged game of the respected type', async () => {
    // 8 is too young; 7's block number is challenged; 6 is unchallenged and old enough (its root is not checked).
    expect(await finderChoice()).toBe(6n);
    const [context] = coder.decode(
      ['bytes'],
      await l1Provider.call({
        to: verifier.target,
        data: verifier.interface.encodeFunctionData('getLatestContext'),
      }),
    ) as unknown as [string];
    expect(coder.decode(['uint256'], context)[0]).toBe(6n);
    expect(await verifier.getFunction('minAgeSec')()).toBe(BigInt(MIN_AGE_SEC));
    expect(await verifier.getFunction('anchorStateRegistry')()).toBe(registry.target);
  });

  it('the prover skips a game whose root is not the L2’s, the blacklisted, the permissioned, the lost and the disputed', async () => {
    // 6: wrong root; 5: blacklisted; 4: not the respected type; 3: CHALLENGER_WINS; 2: challenged, unresolved;
    // 1: challenged but DEFENDER_WINS.
    expect(await proverChoice()).toEqual(summary(games[1]));
  });

  it('minimum age 0 accepts only games resolved for the proposer', async () => {
    expect(await finderChoice(0)).toBe(1n);
    expect(await proverChoice(0)).toEqual(summary(games[1]));
  });

  it('a configured game type replaces the respected one', async () => {
    expect(await finderChoice(MIN_AGE_SEC, [PERMISSIONED])).toBe(4n);
    expect(await proverChoice(MIN_AGE_SEC, [PERMISSIONED])).toEqual(summary(games[4]));
  });

  it('after the registry switches game type, games of the new type and those created under the old one count', async () => {
    await send(registry, 'setRespectedGameType', [PERMISSIONED]);
    try {
      // 6 was created while its type was respected; below it, 4 is of the type respected now.
      expect(await finderChoice()).toBe(6n);
      expect(await proverChoice()).toEqual(summary(games[4]));
    } finally {
      await send(registry, 'setRespectedGameType', [RESPECTED]);
    }
  });

  it('once old enough, the newest game is chosen; once blacklisted, the one before it', async () => {
    await l1Provider.send('evm_increaseTime', [MIN_AGE_SEC]);
    await l1Provider.send('evm_mine', []);
    expect(await finderChoice()).toBe(8n);
    expect(await proverChoice()).toEqual(summary(games[8]));
    await send(registry, 'blacklistDisputeGame', [games[8]?.contract.target]);
    expect(await finderChoice()).toBe(6n);
    expect(await proverChoice()).toEqual(summary(games[1]));
  });
});
