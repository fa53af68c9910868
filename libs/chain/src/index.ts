export { UpstreamError, isUpstreamError, toUpstreamError, CcipReadUrlRefusedError } from './errors';
export {
  CHAIN_IDS,
  DEFAULT_ENS_ADDRESSES,
  DEFAULT_RPC_TIMEOUT_MS,
  DEFAULT_RPC_URLS,
  LOCAL_BATCH_GATEWAY_URL,
  NETWORK_NAMES,
  NetworkConfigError,
  isNetworkName,
  loadNetworksConfig,
  networkByChainId,
  networksEnvSchema,
  networksFromEnv,
  type EnsAddresses,
  type NetworkConfig,
  type NetworkName,
  type NetworksConfig,
  type NetworksEnv,
} from './networks';
export { ChainProvider, createProvider } from './provider';
export { observeRpcCalls, type RpcCall, type RpcOutcome } from './rpc-calls';
export {
  outboundUrlRefusal,
  checkOutboundUrl,
  isPrivateAddress,
  normaliseOrigin,
  originListSchema,
  type OutboundUrlPolicy,
} from './outbound-url-policy';
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
export {
  CcipRequestError,
  decodeResolveCall,
  offchainResolverSignatureHash,
  signOffchainResolverResponse,
} from './ccip';
export {
  BATCH_GATEWAY_ABI,
  ENS_REGISTRY_ABI,
  EXTENDED_RESOLVER_INTERFACE_ID,
  NAME_WRAPPER_ABI,
  OFFCHAIN_RESOLVER_ABI,
  RESOLVER_ABI,
  UNIVERSAL_RESOLVER_ABI,
  batchGatewayInterface,
  ensRegistryInterface,
  nameWrapperInterface,
  offchainResolverInterface,
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
