export { UpstreamError, isUpstreamError, toUpstreamError, CcipReadUrlRefusedError } from './errors';
export {
  DEFAULT_ENS_ADDRESSES,
  DEFAULT_RPC_TIMEOUT_MS,
  DEFAULT_RPC_URLS,
  LOCAL_BATCH_GATEWAY_URL,
  NETWORK_NAMES,
  envPrefix,
  l2sSettlingOn,
  perNetwork,
  settlementOf,
  NetworkConfigError,
  isNetworkName,
  loadNetworksConfig,
  networkByChainId,
  networksEnvSchema,
  networksFromEnv,
  type EnsAddresses,
  type EnvPrefix,
  type NetworkConfig,
  type NetworkName,
  type NetworksConfig,
  type NetworksEnv,
} from './networks';
export { withDeadline } from './deadline';
export { ChainProvider, createProvider } from './provider';
export { createNetworkProviders, type NetworkProviders } from './network-providers';
export { NoValue, callDeployless, callView, readView, type ViewCall } from './call-view';
export {
  readBlock,
  readBlockNumber,
  readLogs,
  type BlockHeader,
  type DecodedLog,
  type LogSource,
} from './logs';
export { observeRpcCalls, type RpcCall, type RpcOutcome } from './rpc-calls';
export {
  NON_PUBLIC_ADDRESS,
  isAllowedOrigin,
  isPublicAddress,
  normaliseOrigin,
  originListSchema,
  outboundUrlRefusal,
  publicOnlyLookup,
  type OutboundUrlPolicy,
} from './outbound-url-policy';
export {
  OUTBOUND_JSON_MAX_DEPTH,
  OutboundNoAnswerError,
  OutboundTooLargeError,
  OutboundUrlRefusedError,
  outboundRequest,
  parseOutboundJson,
  type OutboundAnswer,
  type OutboundRequest,
} from './outbound-request';
export {
  classifyResolveSlot,
  classifyRevert,
  getOwner,
  getRegistryOwner,
  getResolverAddress,
  universalResolve,
  universalReverse,
  type UniversalResolveResult,
  type UniversalReverseResult,
} from './ens-reads';
export { getRegistryResolver, readNameControl, type NameControl } from './name-control';
export {
  CcipRequestError,
  decodeResolveCall,
  offchainResolverSignatureHash,
  signOffchainResolverResponse,
} from './ccip';
export {
  BASE_REGISTRAR_ABI,
  BATCH_GATEWAY_ABI,
  ENS_REGISTRY_ABI,
  ERC1155_ABI,
  ERC721_ABI,
  EXTENDED_RESOLVER_INTERFACE_ID,
  MINT_CONTROLLER_ABI,
  NAME_WRAPPER_ABI,
  OFFCHAIN_RESOLVER_ABI,
  RESOLVER_ABI,
  UNIVERSAL_RESOLVER_ABI,
  baseRegistrarInterface,
  batchGatewayInterface,
  ensRegistryInterface,
  erc1155Interface,
  erc1271Interface,
  erc721Interface,
  mintControllerInterface,
  nameWrapperInterface,
  offchainResolverInterface,
  proofVerifierInterface,
  resolverInterface,
  universalResolverInterface,
} from './abis';
export {
  decodeAddrResult,
  decodeContenthashResult,
  decodeTextResult,
  encodeAddrCall,
  encodeContenthashCall,
  encodeTextCall,
} from './records';
export {
  L2_NETWORK_NAMES,
  addressListEnv,
  createL2Providers,
  l2MintControllerInterface,
  l2NetworksEnvSchema,
  l2NetworksFromEnv,
  l2RegistryInterface,
  type L2NetworkConfig,
  type L2NetworkName,
  type L2NetworksConfig,
  type L2Providers,
} from './l2-networks';
export {
  L2ProofNotServedError,
  L2ProofRequestError,
  L2_FAULT_PROOF_ROLLUPS,
  createL2ProofRollup,
  createL2Prover,
  parseL2ProofRequest,
  l2ProofRollupsFromEnv,
  l2ProofsEnvSchema,
  type L2ProofRollupConfig,
  type L2Prover,
  type L2ProofRequest,
  type L2ProverOptions,
} from './l2-proofs';
export { MAX_PROVER_BODY_BYTES, startL2ProverServer, type L2ProverServer } from './l2-prover-server';
export { L2ParentDirectory } from './l2-parents';
