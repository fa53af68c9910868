import { getAddress } from 'viem';
import { L2_FAULT_PROOF_ROLLUPS, l2ProofRollupsFromEnv, l2ProofsEnvSchema } from '../src';

const PORTAL = getAddress('0x00000000000000000000000000000000000000a1');
const FINDER = getAddress('0x00000000000000000000000000000000000000b2');

const rollupsOf = (env: Record<string, string>) => l2ProofRollupsFromEnv(l2ProofsEnvSchema.parse(env));

describe('the rollup each L2 prover proves against, from the env', () => {
  it('is Base’s fault-dispute games by default: the respected game type, games at least an hour old', () => {
    expect(rollupsOf({})).toEqual(L2_FAULT_PROOF_ROLLUPS);
    expect(L2_FAULT_PROOF_ROLLUPS.base).toMatchObject({ kind: 'op-fault', minAgeSec: 3600, gameTypes: [] });
  });

  it('takes the accepted game types and minimum age of each L2 from its own variables', () => {
    const rollups = rollupsOf({ BASE_PROOF_GAME_TYPES: '0,1', BASE_PROOF_MIN_AGE_SECONDS: '7200' });
    expect(rollups.base).toEqual({ ...L2_FAULT_PROOF_ROLLUPS.base, gameTypes: [0, 1], minAgeSec: 7200 });
    expect(rollups['base-sepolia']).toEqual(L2_FAULT_PROOF_ROLLUPS['base-sepolia']);
    expect(rollupsOf({ BASE_SEPOLIA_PROOF_GAME_TYPES: '' })['base-sepolia']).toEqual(
      L2_FAULT_PROOF_ROLLUPS['base-sepolia'],
    );
  });

  it('takes the game finder (the one the verifier was deployed with) of each L2 from its own variable', () => {
    const rollups = rollupsOf({ BASE_PROOF_GAME_FINDER: FINDER.toLowerCase() });
    expect(rollups.base).toEqual({ ...L2_FAULT_PROOF_ROLLUPS.base, gameFinder: FINDER });
    expect(rollups['base-sepolia']).toEqual(L2_FAULT_PROOF_ROLLUPS['base-sepolia']);
    expect(l2ProofsEnvSchema.safeParse({ BASE_SEPOLIA_PROOF_GAME_FINDER: '0x1234' }).success).toBe(false);
  });

  it.each([['0,x'], ['1,'], [' 1']])('refuses game types %j', (gameTypes) => {
    expect(l2ProofsEnvSchema.safeParse({ BASE_PROOF_GAME_TYPES: gameTypes }).success).toBe(false);
  });

  it('refuses a negative minimum age', () => {
    expect(l2ProofsEnvSchema.safeParse({ BASE_PROOF_MIN_AGE_SECONDS: '-1' }).success).toBe(false);
  });

  it('is an L2OutputOracle where the portal and the output finder are given (the dev stack)', () => {
    const rollups = rollupsOf({
      BASE_SEPOLIA_PROOF_OPTIMISM_PORTAL: PORTAL,
      BASE_SEPOLIA_PROOF_OUTPUT_FINDER: FINDER,
      L2_PROOF_L1_BLOCK_TAG: 'latest',
    });
    expect(rollups['base-sepolia']).toEqual({
      kind: 'op-output-oracle',
      optimismPortal: PORTAL,
      outputFinder: FINDER,
      minAgeSec: 0,
      l1BlockTag: 'latest',
    });
    expect(rollups.base).toEqual(L2_FAULT_PROOF_ROLLUPS.base);
  });
});
