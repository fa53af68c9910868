import l2MintControllerJson from '../artifacts/L2MintController.json';
import l2NameResolverJson from '../artifacts/L2NameResolver.json';
import l2RegistryJson from '../artifacts/L2Registry.json';
import { artifact } from './artifact';

/**
 * One parent's subnames on an L2 (src/l2/L2Registry.sol): ERC-721 tokens numbered `uint256(namehash(full name))`
 * with their records. Constructor `(tokenName, tokenSymbol, parentNode, dnsEncodedParentName, owner)`.
 */
export const l2RegistryArtifact = artifact(l2RegistryJson);

/**
 * The L2 mint controller: MintController's EIP-712 domain, `MintContext` and `mint` arguments, registering on one
 * L2Registry. Constructor `(registry, treasury, signer, owner)`.
 */
export const l2MintControllerArtifact = artifact(l2MintControllerJson);

/**
 * The parent's L1 resolver for L2 subnames: every record through an EIP-3668 lookup answered and signed as for
 * SignedOffchainResolver. Constructor `(url, signers, l2ChainId, l2Registry)`.
 */
export const l2NameResolverArtifact = artifact(l2NameResolverJson);

/** PARENT_CANNOT_CONTROL in a mint's `fuses`: the parent can no longer `revoke` the L2 subname. */
export const L2_PARENT_CANNOT_CONTROL = 1 << 16;
