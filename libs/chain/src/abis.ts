import { Interface } from 'ethers';

/** Human-readable ABIs (the subsets the services use) of the ENS contracts. */
export const ENS_REGISTRY_ABI = [
  'function owner(bytes32 node) view returns (address)',
  'function resolver(bytes32 node) view returns (address)',
  'function ttl(bytes32 node) view returns (uint64)',
  'function recordExists(bytes32 node) view returns (bool)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function setResolver(bytes32 node, address resolver)',
  'event Transfer(bytes32 indexed node, address owner)',
  'event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner)',
] as const;

export const NAME_WRAPPER_ABI = [
  'function ownerOf(uint256 id) view returns (address)',
  'function names(bytes32 node) view returns (bytes)',
  'function getData(uint256 id) view returns (address owner, uint32 fuses, uint64 expiry)',
  'function isWrapped(bytes32 node) view returns (bool)',
  'function isApprovedForAll(address account, address operator) view returns (bool)',
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function setResolver(bytes32 node, address resolver)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event NameWrapped(bytes32 indexed node, bytes name, address owner, uint32 fuses, uint64 expiry)',
  'event ExpiryExtended(bytes32 indexed node, uint64 expiry)',
] as const;

export const RESOLVER_ABI = [
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function addr(bytes32 node) view returns (address)',
  'function addr(bytes32 node, uint256 coinType) view returns (bytes)',
  'function text(bytes32 node, string key) view returns (string)',
  'function contenthash(bytes32 node) view returns (bytes)',
  'function name(bytes32 node) view returns (string)',
  'function multicall(bytes[] data) returns (bytes[] results)',
  'function resolve(bytes name, bytes data) view returns (bytes)',
  'function supportsFeature(bytes4 feature) view returns (bool)',
  // what our SignedOffchainResolver reverts with when a gateway answer does not verify
  'error SignatureExpired(uint64 expires)',
  'error UntrustedSigner(address signer)',
  'error InvalidGatewayResponse()',
] as const;

/** IUniversalResolver as mainnet runs it (v3): ENSIP-10, ENSIP-19 reverse, ENSIP-21 batch gateways. */
export const UNIVERSAL_RESOLVER_ABI = [
  'function resolve(bytes name, bytes data) view returns (bytes result, address resolver)',
  'function resolveWithGateways(bytes name, bytes data, string[] gateways) view returns (bytes result, address resolver)',
  'function resolveWithResolver(address resolver, bytes name, bytes data, string[] gateways) view returns (bytes)',
  'function reverse(bytes lookupAddress, uint256 coinType) view returns (string primary, address resolver, address reverseResolver)',
  'function reverseWithGateways(bytes lookupAddress, uint256 coinType, string[] gateways) view returns (string primary, address resolver, address reverseResolver)',
  'function findResolver(bytes name) view returns (address resolver, bytes32 node, uint256 offset)',
  'function requireResolver(bytes name) view returns ((bytes name, uint256 offset, bytes32 node, address resolver, bool extended) info)',
  'error ResolverNotFound(bytes name)',
  'error ResolverNotContract(bytes name, address resolver)',
  'error UnsupportedResolverProfile(bytes4 selector)',
  'error ResolverError(bytes errorData)',
  'error ReverseAddressMismatch(string primary, bytes primaryAddress)',
  'error HttpError(uint16 status, string message)',
  'error DNSDecodingFailed(bytes dns)',
  'error DNSEncodingFailed(string ens)',
  'error EmptyAddress()',
  'error InvalidBatchGatewayResponse()',
] as const;

/**
 * Errors with which a proving resolver's verifier (ProvenL2Resolver on `@unruggable/gateways`) refuses a gateway's
 * proofs in the callback.
 */
export const PROOF_VERIFIER_ABI = [
  'error CommitTooOld(uint256 latest, uint256 got, uint256 window)',
  'error CommitTooNew(uint256 latest, uint256 got)',
  'error OutputNotFound()',
  'error GameNotFound()',
  'error InvalidProof()',
] as const;

/** ENSIP-21 batch gateway: one EIP-3668 request per query; a failed one answers its error data. */
export const BATCH_GATEWAY_ABI = [
  'function query((address sender, string[] urls, bytes data)[] queries) view returns (bool[] failures, bytes[] responses)',
  'error HttpError(uint16 status, string message)',
] as const;

export const OFFCHAIN_RESOLVER_ABI = [
  'function resolve(bytes name, bytes data) view returns (bytes)',
  'function resolveWithProof(bytes response, bytes extraData) view returns (bytes)',
  'function makeSignatureHash(address target, uint64 expires, bytes request, bytes result) pure returns (bytes32)',
  'error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData)',
] as const;

/** The .eth BaseRegistrar: the expiry of a second-level .eth name (token id = labelhash). */
export const BASE_REGISTRAR_ABI = ['function nameExpires(uint256 id) view returns (uint256)'] as const;

/** ERC-721 reads: token gates (balance) and ENSIP-12 NFT avatars (owner, token URI). */
export const ERC721_ABI = [
  'function balanceOf(address owner) view returns (uint256)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function tokenURI(uint256 tokenId) view returns (string)',
] as const;

/** ERC-1155 reads: token gates and ENSIP-12 NFT avatars (balance, metadata URI). */
export const ERC1155_ABI = [
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function uri(uint256 id) view returns (string)',
] as const;

/** The reads of our MintController (libs/contracts) that mint-svc's readiness makes, and the event it indexes. */
export const MINT_CONTROLLER_ABI = [
  'function signers(address signer) view returns (bool)',
  'function treasury() view returns (address)',
  'event SubnameMinted(bytes32 indexed parentNode, bytes32 indexed node, address indexed owner, string label, uint256 price, uint256 fee, address paymentReceiver, uint64 expiry)',
] as const;

export const ensRegistryInterface = new Interface(ENS_REGISTRY_ABI);
export const nameWrapperInterface = new Interface(NAME_WRAPPER_ABI);
export const resolverInterface = new Interface(RESOLVER_ABI);
export const universalResolverInterface = new Interface(UNIVERSAL_RESOLVER_ABI);
export const proofVerifierInterface = new Interface(PROOF_VERIFIER_ABI);
export const batchGatewayInterface = new Interface(BATCH_GATEWAY_ABI);
export const offchainResolverInterface = new Interface(OFFCHAIN_RESOLVER_ABI);
export const baseRegistrarInterface = new Interface(BASE_REGISTRAR_ABI);
export const erc721Interface = new Interface(ERC721_ABI);
export const erc1155Interface = new Interface(ERC1155_ABI);
export const mintControllerInterface = new Interface(MINT_CONTROLLER_ABI);

/** ENSIP-10 IExtendedResolver interface id. */
export const EXTENDED_RESOLVER_INTERFACE_ID = '0x9061b923';

/** ERC-1271: a contract wallet's answer to "is this its signature". */
export const erc1271Interface = new Interface([
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);
