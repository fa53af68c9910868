import type { InterfaceAbi } from 'ethers';

/** A compiled contract: what `scripts/compile.ts` writes to `artifacts/<Name>.json`. */
export interface ContractArtifact {
  contractName: string;
  abi: InterfaceAbi;
  bytecode: string;
}

/** The artifact of one compiled contract's JSON. */
export function artifact(json: { contractName: string; abi: unknown[]; bytecode: string }): ContractArtifact {
  return { contractName: json.contractName, abi: json.abi as InterfaceAbi, bytecode: json.bytecode };
}
