import {
  ContractFactory,
  type Contract,
  type Signer,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';
import mintControllerJson from '../artifacts/MintController.json';
import { artifact } from './artifact';
import { MINT_CONTROLLER_MINT_ABI } from './mint-controller-abi';

/** The mint controller (src/MintController.sol): EIP-712 signed subname mints, payments, records. */
export const mintControllerArtifact = artifact(mintControllerJson);

/** EIP-712 domain name and version the controller verifies against. */
export const MINT_DOMAIN_NAME = 'NameRecordsMint';
export const MINT_DOMAIN_VERSION = '1';

/** The EIP-712 `MintContext` type: the members of `mint`'s `ctx` tuple, in order, as the contract's type hash has them. */
export const MINT_CONTEXT_TYPES: Record<string, TypedDataField[]> = {
  MintContext: MINT_CONTROLLER_MINT_ABI[0].inputs[0].components.map(({ name, type }) => ({ name, type })),
};

/** One mint's parameters, as signed and as passed to `mint(ctx, …)`. Amounts in wei, times in Unix seconds. */
export interface MintContext {
  owner: string;
  label: string;
  parentNode: string;
  price: bigint;
  fee: bigint;
  paymentReceiver: string;
  expiry: bigint;
  signatureExpiry: bigint;
  verifiedMinter: string;
  fuses: number;
}

export function mintEip712Domain(chainId: number | bigint, controller: string): TypedDataDomain {
  return {
    name: MINT_DOMAIN_NAME,
    version: MINT_DOMAIN_VERSION,
    chainId,
    verifyingContract: controller,
  };
}

export interface DeployMintControllerArgs {
  registry: string;
  /** NameWrapper (or its test double); the zero address disables the wrapped path. */
  nameWrapper: string;
  /** Resolver new subnames get and `resolverData` is sent to. */
  resolver: string;
  /** Receives the fees. */
  treasury: string;
  /** First trusted signer (the service's key address); more with `setSigner`. */
  signer: string;
  /** Contract owner (manages signers, treasury, resolver). */
  owner: string;
}

export class MintControllerDeployError extends Error {
  override name = 'MintControllerDeployError';
}

/** Deploys the mint controller and waits for it; returns the contract bound to `deployer`. */
export async function deployMintController(
  deployer: Signer,
  args: DeployMintControllerArgs,
): Promise<Contract> {
  const factory = new ContractFactory(mintControllerArtifact.abi, mintControllerArtifact.bytecode, deployer);
  try {
    const deployed = await factory.deploy(
      args.registry,
      args.nameWrapper,
      args.resolver,
      args.treasury,
      args.signer,
      args.owner,
    );
    await deployed.waitForDeployment();
    return deployed as Contract;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new MintControllerDeployError(`deploying MintController failed: ${message}`, { cause: err });
  }
}
