/**
 * Which dispute game, and so which L2 root, a proven lookup on Base would use: a game finder (the package's
 * OPFaultGameFinder and our DisputeGameFinder, deployed from their artifacts, as our OPFaultVerifier reads them on L1)
 * and the prover's OPFaultRollup (`createL2ProofRollup` with an op-fault configuration, as L2_FAULT_PROOF_ROLLUPS
 * gives it) against simulated games on anvil: an AnchorStateRegistry / DisputeGameFactory / FaultDisputeGame /
 * AggregateVerifier stand-in written from the OP and Base specifications, with games of several types, ages and
 * outcomes whose roots are the L2 anvil's real output roots.
 */
import { AbiCoder, Contract, JsonRpcProvider, NonceManager, Wallet, id, solidityPacked } from 'ethers';
import { OPFaultRollup } from '@unruggable/gateways';
import { createL2ProofRollup, type L2ProofRollupConfig } from '@nrp/chain';
import { L2_CHAIN_ID, l2OutputRootAt, startAnvil, type AnvilNode } from '@nrp/testkit';
import {
  aggregateVerifierTestDoubleArtifact,
  anchorStateRegistryTestDoubleArtifact,
  deployContract,
  deployOpFaultVerifier,
  disputeGameFactoryTestDoubleArtifact,
  disputeGameFinderArtifact,
  faultDisputeGameTestDoubleArtifact,
  unruggableArtifact,
  type ContractArtifact,
} from '../src';

const MIN_AGE_SEC = 3600;
const RESPECTED = 0; // CANNON, the game type Base's AnchorStateRegistry respected before Azul
const PERMISSIONED = 1;
const AGGREGATE_VERIFIER = 621; // Base's game type since Azul
const DEFENDER_WINS = 2;
const CHALLENGER_WINS = 1;
const coder = AbiCoder.defaultAbiCoder();

interface Game {
  index: bigint;
  l2BlockNumber: bigint;
  rootClaim: string;
  contract: Contract;
}

const summary = (game: Pick<Game, 'index' | 'l2BlockNumber' | 'rootClaim'> | undefined) => ({
  index: Number(game?.index),
  l2BlockNumber: Number(game?.l2BlockNumber),
  rootClaim: game?.rootClaim,
});

/** Two anvils (L1, and an L2 with 32 blocks), a registry stand-in with its factory, a game finder and an OPFaultVerifier. */
class SimulatedGames {
  l1!: AnvilNode;
  l2!: AnvilNode;
  l1Provider!: JsonRpcProvider;
  l2Provider!: JsonRpcProvider;
  signer!: NonceManager;
  registry!: Contract;
  factory!: Contract;
  finder!: Contract;
  verifier!: Contract;
  readonly games: Game[] = [];

  /** The verifier accepts games at least an hour old, of the respected game type (or respected when created). */
  async start(finderArtifact: ContractArtifact, respectedGameType: number): Promise<void> {
    [this.l1, this.l2] = await Promise.all([startAnvil(), startAnvil({ chainId: L2_CHAIN_ID })]);
    this.l1Provider = new JsonRpcProvider(this.l1.rpcUrl, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    this.l2Provider = new JsonRpcProvider(this.l2.rpcUrl, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    const [deployer] = this.l1.accounts;
    if (!deployer) throw new Error('anvil accounts');
    this.signer = new NonceManager(new Wallet(deployer.privateKey, this.l1Provider));
    await this.l2Provider.send('anvil_mine', ['0x20']);

    this.registry = await deployContract(this.signer, anchorStateRegistryTestDoubleArtifact, [
      respectedGameType,
    ]);
    this.factory = new Contract(
      (await this.registry.getFunction('disputeGameFactory')()) as string,
      disputeGameFactoryTestDoubleArtifact.abi,
      this.signer,
    );
    this.finder = await deployContract(this.signer, finderArtifact);
    const deployed = await deployOpFaultVerifier(this.signer, {
      anchorStateRegistry: String(this.registry.target),
      gameFinder: String(this.finder.target),
      minAgeSec: MIN_AGE_SEC,
      gameTypes: [],
      windowSeconds: 3 * 3600,
      gatewayUrls: [],
    });
    this.verifier = new Contract(
      deployed.verifier,
      unruggableArtifact('OPFaultVerifier', { GatewayVM: deployed.gatewayVM }).abi,
      this.l1Provider,
    );
  }

  async stop(): Promise<void> {
    this.l1Provider?.destroy();
    this.l2Provider?.destroy();
    await Promise.all([this.l1?.stop(), this.l2?.stop()]);
  }

  async send(contract: Contract, fn: string, args: unknown[] = []): Promise<void> {
    const tx = (await contract.getFunction(fn)(...args)) as { wait(): Promise<unknown> };
    await tx.wait();
  }

  /** Moves the L1 clock `seconds` on: the games created so far are that much older. */
  async age(seconds: number): Promise<void> {
    await this.l1Provider.send('evm_increaseTime', [seconds]);
    await this.l1Provider.send('evm_mine', []);
  }

  /** Creates a fault-dispute game for L2 block `l2BlockNumber` claiming its real output root (or `rootClaim`). */
  async createGame(gameType: number, l2BlockNumber: bigint, rootClaim?: string): Promise<Game> {
    const claim = rootClaim ?? (await l2OutputRootAt(this.l2Provider, l2BlockNumber)).outputRoot;
    await this.send(this.factory, 'create', [gameType, claim, coder.encode(['uint256'], [l2BlockNumber])]);
    return this.recordGame(l2BlockNumber, claim, faultDisputeGameTestDoubleArtifact);
  }

  /** Creates a TEE-proven AggregateVerifier game for L2 block `l2BlockNumber`'s real output root, child of `parent`. */
  async createAggregateGame(l2BlockNumber: bigint, parent: Game | 'anchor'): Promise<Game> {
    const claim = (await l2OutputRootAt(this.l2Provider, l2BlockNumber)).outputRoot;
    const parentAddress = parent === 'anchor' ? this.registry.target : parent.contract.target;
    // Base's extraData: the L2 block number, the parent, the intermediate roots (one here: the root claim).
    const extraData = solidityPacked(
      ['uint256', 'address', 'bytes32'],
      [l2BlockNumber, parentAddress, claim],
    );
    await this.send(this.factory, 'create', [AGGREGATE_VERIFIER, claim, extraData]);
    return this.recordGame(l2BlockNumber, claim, aggregateVerifierTestDoubleArtifact);
  }

  private async recordGame(l2BlockNumber: bigint, rootClaim: string, gameArtifact: ContractArtifact) {
    const index = ((await this.factory.getFunction('gameCount')()) as bigint) - 1n;
    const [, , proxy] = (await this.factory.getFunction('gameAtIndex')(index)) as [bigint, bigint, string];
    const game = {
      index,
      l2BlockNumber,
      rootClaim,
      contract: new Contract(proxy, gameArtifact.abi, this.signer),
    };
    this.games.push(game);
    return game;
  }

  private params(minAgeSec: number, gameTypes: number[]) {
    return [this.registry.target, minAgeSec, gameTypes, []];
  }

  // Numbers, not bigints, in what the tests compare: jest's workers cannot report a failed bigint comparison.

  /** The index the on-chain finder returns for these parameters. */
  async finderChoice(minAgeSec = MIN_AGE_SEC, gameTypes: number[] = []): Promise<number> {
    return Number(await this.finder.getFunction('findGameIndex')(this.params(minAgeSec, gameTypes), 0));
  }

  /** The L2 block the finder gives for game `index`: 0 when it is not usable. */
  async finderBlock(index: bigint, minAgeSec = MIN_AGE_SEC): Promise<number> {
    const game = (await this.finder.getFunction('gameAtIndex')(
      this.params(minAgeSec, []),
      index,
    )) as bigint[];
    return Number(game[3]);
  }

  /** The game index the verifier's `getLatestContext` names. */
  async verifierChoice(): Promise<number> {
    const [context] = coder.decode(
      ['bytes'],
      await this.l1Provider.call({
        to: this.verifier.target,
        data: this.verifier.interface.encodeFunctionData('getLatestContext'),
      }),
    ) as unknown as [string];
    return Number(coder.decode(['uint256'], context)[0]);
  }

  /** The commit (game index, L2 block, root) the prover's rollup answers from. */
  async proverChoice(minAgeSec = MIN_AGE_SEC, gameTypes: number[] = []) {
    const config: L2ProofRollupConfig = {
      kind: 'op-fault',
      anchorStateRegistry: String(this.registry.target),
      gameFinder: String(this.finder.target),
      minAgeSec,
      gameTypes,
    };
    const rollup = createL2ProofRollup({ l1: this.l1Provider, l2: this.l2Provider, rollup: config });
    if (!(rollup instanceof OPFaultRollup)) throw new Error('not an OPFaultRollup');
    // anvil has no finalized blocks to speak of: read the latest (Base's prover reads `finalized`).
    rollup.latestBlockTag = 'latest';
    const commit = await rollup.fetchCommit(await rollup.fetchLatestCommitIndex());
    return summary({
      index: commit.index,
      l2BlockNumber: commit.game.l2BlockNumber,
      rootClaim: commit.game.rootClaim,
    });
  }
}

/** SimulatedGames started before the describe's tests and stopped after them. */
function simulatedGames(finderArtifact: () => ContractArtifact, respectedGameType: number): SimulatedGames {
  const sim = new SimulatedGames();
  beforeAll(() => sim.start(finderArtifact(), respectedGameType));
  afterAll(() => sim.stop());
  return sim;
}

const FINDERS: [string, () => ContractArtifact][] = [
  ['the package’s OPFaultGameFinder', () => unruggableArtifact('OPFaultGameFinder')],
  ['our DisputeGameFinder', () => disputeGameFinderArtifact],
];

describe.each(FINDERS)('OP fault-dispute games (types 0 and 1), read by %s', (_name, finderArtifact) => {
  const sim = simulatedGames(finderArtifact, RESPECTED);
  const { games } = sim;

  beforeAll(async () => {
    // Games created an hour and more ago, newest last.
    await sim.createGame(RESPECTED, 1n); // 0: unchallenged
    const disputed = await sim.createGame(RESPECTED, 2n); // 1: challenged, resolved for the proposer
    await sim.send(disputed.contract, 'move');
    await sim.send(disputed.contract, 'resolveAs', [DEFENDER_WINS]);
    await sim.send((await sim.createGame(RESPECTED, 3n)).contract, 'move'); // 2: challenged, in progress
    const lost = await sim.createGame(RESPECTED, 4n); // 3: challenged, resolved for the challenger
    await sim.send(lost.contract, 'move');
    await sim.send(lost.contract, 'resolveAs', [CHALLENGER_WINS]);
    await sim.createGame(PERMISSIONED, 5n); // 4: unchallenged, a game type the registry does not respect
    await sim.send(sim.registry, 'blacklistDisputeGame', [
      (await sim.createGame(RESPECTED, 5n)).contract.target,
    ]); // 5
    await sim.createGame(RESPECTED, 6n, id('not the L2 root of block 6')); // 6: unchallenged, a wrong root
    await sim.send((await sim.createGame(RESPECTED, 7n)).contract, 'challengeL2BlockNumber'); // 7
    await sim.age(MIN_AGE_SEC + 60);
    await sim.createGame(RESPECTED, 8n); // 8: unchallenged, too young
  });

  it('the finder and the verifier take the newest old-enough unchallenged game of the respected type', async () => {
    // 8 is too young; 7's block number is challenged; 6 is unchallenged and old enough (its root is not checked).
    expect(await sim.finderChoice()).toBe(6);
    expect(await sim.verifierChoice()).toBe(6);
    expect(Number(await sim.verifier.getFunction('minAgeSec')())).toBe(MIN_AGE_SEC);
    expect(await sim.verifier.getFunction('anchorStateRegistry')()).toBe(sim.registry.target);
  });

  it('the prover skips a game whose root is not the L2’s, the blacklisted, the permissioned, the lost and the disputed', async () => {
    // 6: wrong root; 5: blacklisted; 4: not the respected type; 3: CHALLENGER_WINS; 2: challenged, unresolved;
    // 1: challenged but DEFENDER_WINS.
    expect(await sim.proverChoice()).toEqual(summary(games[1]));
  });

  it('minimum age 0 accepts only games resolved for the proposer', async () => {
    expect(await sim.finderChoice(0)).toBe(1);
    expect(await sim.proverChoice(0)).toEqual(summary(games[1]));
  });

  it('a configured game type replaces the respected one', async () => {
    expect(await sim.finderChoice(MIN_AGE_SEC, [PERMISSIONED])).toBe(4);
    expect(await sim.proverChoice(MIN_AGE_SEC, [PERMISSIONED])).toEqual(summary(games[4]));
  });

  it('after the registry switches game type, games of the new type and those created under the old one count', async () => {
    await sim.send(sim.registry, 'setRespectedGameType', [PERMISSIONED]);
    try {
      // 6 was created while its type was respected; below it, 4 is of the type respected now.
      expect(await sim.finderChoice()).toBe(6);
      expect(await sim.proverChoice()).toEqual(summary(games[4]));
    } finally {
      await sim.send(sim.registry, 'setRespectedGameType', [RESPECTED]);
    }
  });

  it('once old enough, the newest game is chosen; once blacklisted, the one before it', async () => {
    await sim.age(MIN_AGE_SEC);
    expect(await sim.finderChoice()).toBe(8);
    expect(await sim.proverChoice()).toEqual(summary(games[8]));
    await sim.send(sim.registry, 'blacklistDisputeGame', [games[8]?.contract.target]);
    expect(await sim.finderChoice()).toBe(6);
    expect(await sim.proverChoice()).toEqual(summary(games[1]));
  });
});

describe('Base since Azul: AggregateVerifier games (type 621), read by our DisputeGameFinder', () => {
  const sim = simulatedGames(() => disputeGameFinderArtifact, RESPECTED);
  const game = (index: number): Game => {
    const found = sim.games[index];
    if (!found) throw new Error(`no game ${index}`);
    return found;
  };

  beforeAll(async () => {
    await sim.createGame(RESPECTED, 1n); // 0: a fault-dispute game from before the switch, unchallenged
    await sim.age(MIN_AGE_SEC + 60);
  });

  it('before the registry switches, the finder, the verifier and the prover take the fault-dispute game', async () => {
    expect(await sim.finderChoice()).toBe(0);
    expect(await sim.verifierChoice()).toBe(0);
    expect(await sim.proverChoice()).toEqual(summary(game(0)));
  });

  it('after it switches to 621, they take the newest old-enough AggregateVerifier game whose chain is sound', async () => {
    await sim.send(sim.registry, 'setRespectedGameType', [AGGREGATE_VERIFIER]);
    const resolved = await sim.createAggregateGame(2n, 'anchor'); // 1: TEE and ZK proven, resolved for the proposer
    await sim.send(resolved.contract, 'verifyProposalProof');
    await sim.send(resolved.contract, 'resolve');
    const proven = await sim.createAggregateGame(3n, resolved); // 2: in progress, unchallenged
    const challenged = await sim.createAggregateGame(4n, proven); // 3: challenged (a ZK proof of another root)
    const childOfChallenged = await sim.createAggregateGame(5n, challenged); // 4
    await sim.send(challenged.contract, 'challenge', [0]);
    await sim.send((await sim.createAggregateGame(6n, proven)).contract, 'nullify'); // 5: its proof nullified
    const lost = await sim.createAggregateGame(7n, resolved); // 6: challenged, resolved for the challenger
    await sim.createAggregateGame(8n, lost); // 7: its parent lost
    await sim.send(lost.contract, 'challenge', [0]);
    await sim.send(lost.contract, 'resolve');
    await sim.createAggregateGame(10n, childOfChallenged); // 8: its grandparent challenged
    const newest = await sim.createAggregateGame(11n, proven); // 9: in progress, unchallenged
    await sim.age(MIN_AGE_SEC + 60);
    await sim.createAggregateGame(12n, newest); // 10: too young

    expect(Number(await lost.contract.getFunction('status')())).toBe(CHALLENGER_WINS);
    expect(await sim.finderChoice()).toBe(9);
    expect(await sim.verifierChoice()).toBe(9);
    expect(await sim.proverChoice()).toEqual(summary(newest));
  });

  it('the finder gives the block of each usable game (l2SequenceNumber) and none for the challenged, the nullified, the lost, their descendants and the young', async () => {
    const blocks = await Promise.all(sim.games.map((g) => sim.finderBlock(g.index)));
    // 0: created while its type was respected; 1: resolved; 2 and 9: unchallenged, chain sound.
    expect(blocks).toEqual([1, 2, 3, 0, 0, 0, 0, 0, 0, 11, 0]);
  });

  it('the package’s 1.3.5 OPFaultGameFinder cannot read them (no l2BlockNumber)', async () => {
    const packageFinder = await deployContract(sim.signer, unruggableArtifact('OPFaultGameFinder'));
    await expect(
      packageFinder.getFunction('gameAtIndex')([sim.registry.target, MIN_AGE_SEC, [], []], 1n),
    ).rejects.toThrow();
  });

  it('minimum age 0 accepts only the game resolved for the proposer; a configured type 0 only the fault game', async () => {
    expect(await sim.finderChoice(0)).toBe(1);
    expect(await sim.proverChoice(0)).toEqual(summary(game(1)));
    expect(await sim.finderChoice(MIN_AGE_SEC, [RESPECTED])).toBe(0);
    expect(await sim.proverChoice(MIN_AGE_SEC, [RESPECTED])).toEqual(summary(game(0)));
  });

  it('once the newest is blacklisted, the one below the skipped games; once an ancestor is, the fault game', async () => {
    await sim.send(sim.registry, 'blacklistDisputeGame', [game(9).contract.target]);
    expect(await sim.finderChoice()).toBe(2);
    expect(await sim.verifierChoice()).toBe(2);
    expect(await sim.proverChoice()).toEqual(summary(game(2)));
    // 2's parent, resolved for the proposer, blacklisted: 2 would resolve for the challenger.
    await sim.send(sim.registry, 'blacklistDisputeGame', [game(1).contract.target]);
    expect(await sim.finderChoice()).toBe(0);
    expect(await sim.proverChoice()).toEqual(summary(game(0)));
  });
});
