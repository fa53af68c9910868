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
export { NETWORK_CHAIN_IDS, NETWORK_NAMES, perNetwork, type NetworkName } from './networks';
