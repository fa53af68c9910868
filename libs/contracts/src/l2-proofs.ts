import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Fragment, type InterfaceAbi } from 'ethers';
import aggregateVerifierJson from '../artifacts/AggregateVerifierTestDouble.json';
import anchorStateRegistryJson from '../artifacts/AnchorStateRegistryTestDouble.json';
import disputeGameFactoryJson from '../artifacts/DisputeGameFactoryTestDouble.json';
import disputeGameFinderJson from '../artifacts/DisputeGameFinder.json';
import faultDisputeGameJson from '../artifacts/FaultDisputeGameTestDouble.json';
import l2OutputOracleJson from '../artifacts/L2OutputOracle.json';
import optimismPortalJson from '../artifacts/OptimismPortal.json';
import provenL2ResolverJson from '../artifacts/ProvenL2Resolver.json';
import { artifact, type ContractArtifact } from './artifact';

/**
 * The proving L1 resolver of an L2 parent: every record through an EIP-3668 lookup answered with storage proofs of
 * the parent's L2Registry, checked by an Unruggable Gateways verifier. Constructor
 * `(verifier, l2ChainId, l2Registry, gatewayUrls)`.
 */
export const provenL2ResolverArtifact = artifact(provenL2ResolverJson);

/** The dev stack's OP-stack L2OutputOracle. Constructor `(proposer, challenger, finalizationPeriodSeconds, startingBlockNumber)`. */
export const l2OutputOracleArtifact = artifact(l2OutputOracleJson);

/** The part of an OptimismPortal the OP verifier reads (`l2Oracle()`). Constructor `(l2Oracle)`. */
export const optimismPortalArtifact = artifact(optimismPortalJson);

/**
 * Our game finder for an OPFaultVerifier and the prover's OPFaultRollup (the package's OPFaultGameFinder ABI):
 * OP fault-dispute games (types 0 and 1) and Base's AggregateVerifier games (type 621, since Azul), which the
 * package's 1.3.5 finder cannot read. No constructor arguments; one per L1 serves every rollup.
 */
export const disputeGameFinderArtifact = artifact(disputeGameFinderJson);

/**
 * Test doubles of the dispute-game contracts a game finder and OPFaultRollup read (written from the OP and Base
 * specifications): AnchorStateRegistry `(respectedGameType)`, which deploys its DisputeGameFactory
 * (`create(gameType, rootClaim, extraData)`), whose games a test moves: FaultDisputeGame (`move`,
 * `challengeL2BlockNumber`, `resolveAs`) and, for game type 621, Base's AggregateVerifier (`verifyProposalProof`,
 * `challenge`, `nullify`, `resolve`).
 */
export const anchorStateRegistryTestDoubleArtifact = artifact(anchorStateRegistryJson);
export const disputeGameFactoryTestDoubleArtifact = artifact(disputeGameFactoryJson);
export const faultDisputeGameTestDoubleArtifact = artifact(faultDisputeGameJson);
export const aggregateVerifierTestDoubleArtifact = artifact(aggregateVerifierJson);

interface FoundryArtifact {
  abi: unknown[];
  bytecode: {
    object: string;
    linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
  };
}

// The package's `exports` map names only its JavaScript entry (dist/cjs/index.cjs): its root is three levels up.
// Found when an artifact is read, not on import: offchain-svc's bundle imports this package for its own resolvers'
// artifacts and has no node_modules/@unruggable/gateways (its image stopped at start with MODULE_NOT_FOUND).
const unruggableRoot = () => path.resolve(require.resolve('@unruggable/gateways'), '../../..');

/**
 * A contract as `@unruggable/gateways` ships it compiled (its `artifacts/<File>.sol/<Name>.json`, solc 0.8.25,
 * Cancun): deployed as audited, not recompiled. `libraries` gives the address of each library it links
 * (OPVerifier and OPFaultVerifier link GatewayVM).
 */
export function unruggableArtifact(
  contractName: string,
  libraries: Record<string, string> = {},
): ContractArtifact {
  const json = JSON.parse(
    readFileSync(
      path.join(unruggableRoot(), 'artifacts', `${contractName}.sol`, `${contractName}.json`),
      'utf8',
    ),
  ) as FoundryArtifact;
  let hex = json.bytecode.object.replace(/^0x/, '');
  for (const references of Object.values(json.bytecode.linkReferences)) {
    for (const [library, positions] of Object.entries(references)) {
      const address = libraries[library];
      if (!address) throw new Error(`${contractName} links ${library}: give its address`);
      for (const { start, length } of positions)
        hex =
          hex.slice(0, start * 2) +
          address.toLowerCase().replace(/^0x/, '') +
          hex.slice((start + length) * 2);
    }
  }
  // A library's ABI names internal types (GatewayVM's `IVerifierHooks` structs) ethers cannot parse: left out.
  const abi = json.abi.filter((fragment) => {
    try {
      Fragment.from(fragment as Parameters<typeof Fragment.from>[0]);
      return true;
    } catch {
      return false;
    }
  });
  return { contractName, abi: abi as InterfaceAbi, bytecode: `0x${hex}` };
}
