import { Contract, ContractFactory, type ContractRunner, type Signer } from 'ethers';
import erc1155AvatarJson from '../artifacts/ERC1155AvatarTestDouble.json';
import erc1271WalletJson from '../artifacts/ERC1271WalletTestDouble.json';
import erc6492SignatureValidatorJson from '../artifacts/ERC6492SignatureValidator.json';
import erc721AvatarJson from '../artifacts/ERC721AvatarTestDouble.json';
import foreignLookupResolverJson from '../artifacts/ForeignLookupResolverTestDouble.json';
import multicall3Json from '../artifacts/Multicall3.json';
import nameWrapperJson from '../artifacts/NameWrapperTestDouble.json';
import reverseNameRegistrarJson from '../artifacts/ReverseNameRegistrar.json';
import signedOffchainResolverJson from '../artifacts/SignedOffchainResolver.json';
import smartAccountFactoryJson from '../artifacts/SmartAccountFactoryTestDouble.json';
import universalResolverJson from '../artifacts/UniversalResolver.json';

import { artifact, type ContractArtifact } from './artifact';

export type { ContractArtifact } from './artifact';

/** Our IUniversalResolver (v3 behaviour: ENSIP-10, ENSIP-19 reverse, ENSIP-21 batch gateways, ENSIP-22). */
export const universalResolverArtifact = artifact(universalResolverJson);
/** Our ENSIP-10 offchain resolver with signed EIP-3668 answers and the ENSIP-22 multicall feature. */
export const signedOffchainResolverArtifact = artifact(signedOffchainResolverJson);
/** Our ENSIP-19 reverse registrar + resolver for one coin type (default.reverse or <coinTypeHex>.reverse). */
export const reverseNameRegistrarArtifact = artifact(reverseNameRegistrarJson);
/** Our Multicall3 (the canonical contract's interface), placed at MULTICALL3_ADDRESS on local chains. */
export const multicall3Artifact = artifact(multicall3Json);
/** Where Multicall3 lives on every public chain, and where viem and ensjs look for it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** ERC-6492's universal signature check, run as a deployless `eth_call` (its creation returns 0x01 when valid). */
export const erc6492SignatureValidatorArtifact = artifact(erc6492SignatureValidatorJson);
/** Test double of an ERC-4337-style account factory: CREATE2 ERC1271WalletTestDouble accounts, one owner EOA each. */
export const smartAccountFactoryTestDoubleArtifact = artifact(smartAccountFactoryJson);
/** Test double of ENS's NameWrapper (ownerOf, names, getData, setSubnodeOwner/Record, wrap). */
export const nameWrapperTestDoubleArtifact = artifact(nameWrapperJson);
/** Test double of an ERC-1271 smart-contract wallet with one owner EOA. */
export const erc1271WalletTestDoubleArtifact = artifact(erc1271WalletJson);
/** Test double of a resolver whose `addr(bytes32)` reverts an `OffchainLookup` naming another contract as sender. */
export const foreignLookupResolverTestDoubleArtifact = artifact(foreignLookupResolverJson);
/** Test double of an ERC-721 collection: anyone mints a token with any token URI (ENSIP-12 NFT avatars). */
export const erc721AvatarTestDoubleArtifact = artifact(erc721AvatarJson);
/** Test double of an ERC-1155 collection: one `{id}` URI template, anyone mints (ENSIP-12 NFT avatars). */
export const erc1155AvatarTestDoubleArtifact = artifact(erc1155AvatarJson);

const DEPLOY_TIMEOUT_MS = 60_000;

export class DeployError extends Error {
  override name = 'DeployError';
}

/** Deploys `artifact` with constructor `args`, waits for the receipt, returns the contract bound to `signer`. */
export async function deployContract(
  signer: Signer,
  artifactToDeploy: ContractArtifact,
  args: unknown[] = [],
): Promise<Contract> {
  const factory = new ContractFactory(artifactToDeploy.abi, artifactToDeploy.bytecode, signer);
  try {
    const deployed = await factory.deploy(...args);
    const tx = deployed.deploymentTransaction();
    const provider = signer.provider;
    if (!tx || !provider) throw new Error('signer has no provider');
    // Poll the receipt: ethers' wait helpers can miss anvil's automined block, and a reverted deploy must fail.
    const deadline = Date.now() + DEPLOY_TIMEOUT_MS;
    let receipt = await provider.getTransactionReceipt(tx.hash);
    while (!receipt) {
      if (Date.now() > deadline) throw new Error(`not mined within ${DEPLOY_TIMEOUT_MS}ms`);
      await new Promise((r) => setTimeout(r, 20));
      receipt = await provider.getTransactionReceipt(tx.hash);
    }
    if (receipt.status !== 1) throw new Error(`deployment transaction ${tx.hash} reverted`);
    return new Contract(await deployed.getAddress(), artifactToDeploy.abi, signer);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new DeployError(`deploying ${artifactToDeploy.contractName} failed: ${message}`, { cause: err });
  }
}

/** Binds an already deployed artifact at `address`. */
export function attachContract(
  address: string,
  artifactToAttach: ContractArtifact,
  runner?: ContractRunner,
): Contract {
  return new Contract(address, artifactToAttach.abi, runner);
}

export function deployNameWrapperTestDouble(signer: Signer, registry: string): Promise<Contract> {
  return deployContract(signer, nameWrapperTestDoubleArtifact, [registry]);
}

export function deployERC1271WalletTestDouble(signer: Signer, owner: string): Promise<Contract> {
  return deployContract(signer, erc1271WalletTestDoubleArtifact, [owner]);
}
export * from './mint-controller';
export * from './l2';
export * from './l2-proofs';
