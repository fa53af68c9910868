export {
  EnsError,
  InvalidAddressError,
  InvalidContenthashError,
  InvalidDnsEncodingError,
  InvalidNameError,
  InvalidTokenIdError,
} from './errors';
export { bytesToHex, hexToBytes, isHex, type Hex } from './hex';
export { beautify, isNormalized, isSingleLabel, normalizeName, parentOf, splitLabels } from './normalize';
export { encodedLabelhash, labelhash, namehash, namehashFromTokenId, tokenIdFromNamehash } from './hash';
export { dnsDecode, dnsEncode } from './dns';
export {
  DEFAULT_EVM_COIN_TYPE,
  ETH_COIN_TYPE,
  EVM_COIN_TYPE_BIT,
  chainByCoinType,
  chainByName,
  chainIdAsCoinTypeHint,
  chainIdFromCoinType,
  coinTypeFromChainId,
  isEvmCoinType,
  isValidCoinType,
  listChains,
  type Chain,
} from './chains';
export { decodeAddress, encodeAddress, isSupportedCoinType, isValidAddress } from './addresses';
export { CONTENTHASH_SCHEMES, decodeContenthash, encodeContenthash } from './contenthash';
export { reverseNodeName } from './reverse';
export {
  L2_NETWORK_CHAIN_IDS,
  L2_NETWORK_NAMES,
  MINT_NETWORK_NAMES,
  NETWORK_CHAIN_IDS,
  NETWORK_NAMES,
  chainIdOf,
  isL2Network,
  l2sSettlingOn,
  perL2Network,
  perNetwork,
  settlementOf,
  type AnyNetworkName,
  type L2NetworkName,
  type NetworkName,
} from './networks';
