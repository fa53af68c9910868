import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Interface } from 'ethers';
import { ARTIFACTS_DIR, artifactJson, compileAll } from '../scripts/solc';
import { l2MintControllerArtifact, mintControllerArtifact } from '../src';
import { MINT_CONTROLLER_MINT_ABI } from '../src/mint-controller-abi';

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

it("the pages' `mint` ABI is the compiled controllers' mint, as ethers writes it (L1 and L2)", () => {
  const mint = (abi: ConstructorParameters<typeof Interface>[0]) =>
    new Interface(abi).getFunction('mint')?.format('full');
  const expected = mint(MINT_CONTROLLER_MINT_ABI);
  expect(expected).toMatch(
    /^function mint\(\(address owner, string label, bytes32 parentNode, .+\) payable$/,
  );
  expect(mint(mintControllerArtifact.abi)).toBe(expected);
  expect(mint(l2MintControllerArtifact.abi)).toBe(expected);
});
