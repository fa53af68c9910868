import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_DIR, artifactJson, compileAll } from '../scripts/solc';

describe('committed artifacts', () => {
  it('match a fresh compile of src/**/*.sol (run `npm run contracts:build` after editing Solidity)', () => {
    const fresh = compileAll();
    expect(fresh.map((a) => a.contractName).sort()).toEqual(
      expect.arrayContaining([
        'ERC1271WalletTestDouble',
        'Multicall3',
        'NameWrapperTestDouble',
        'ReverseNameRegistrar',
        'SignedOffchainResolver',
        'UniversalResolver',
      ]),
    );
    for (const artifact of fresh) {
      const committed = readFileSync(path.join(ARTIFACTS_DIR, `${artifact.contractName}.json`), 'utf8');
      expect(committed).toBe(artifactJson(artifact));
    }
  });
});
