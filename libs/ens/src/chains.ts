/**
 * Chains whose addresses ENS address records hold, keyed by the short names the Namespace SDK uses
 * (`ChainName` of @thenamespace/offchain-manager), with coin types per SLIP-44 (non-EVM chains),
 * ENSIP-11 (EVM chains: 0x80000000 | chainId; Ethereum mainnet keeps 60) and ENSIP-19
 * (`default`: the default EVM coin type 0x80000000, chain id 0).
 *
 * The Namespace SDK's own table stores the raw chain id as "coin" for EVM chains and uses 22 for
 * Aptos and 8 for Algorand; this table uses the standard values instead (637 and 283, SLIP-44).
 */

/** Coin type bit marking an ENSIP-11 EVM coin type. */
export const EVM_COIN_TYPE_BIT = 0x80000000;
/** ENSIP-19 default EVM coin type (chain id 0). */
export const DEFAULT_EVM_COIN_TYPE = 0x80000000;
/** SLIP-44 coin type of Ether, used for Ethereum mainnet addresses. */
export const ETH_COIN_TYPE = 60;

const MAX_COIN_TYPE = 0xffffffff;

export interface Chain {
  /** Short name, e.g. 'eth', 'base', 'world_chain'. */
  readonly name: string;
  /** Human-readable name. */
  readonly label: string;
  readonly coinType: number;
  /** EVM chain id (0 for `default`); absent for non-EVM chains. */
  readonly chainId?: number;
  readonly isEvm: boolean;
  /** Other accepted names (address-encoder names, tickers, long names), lowercase. */
  readonly aliases: readonly string[];
}

function evm(name: string, label: string, chainId: number, aliases: string[] = []): Chain {
  return { name, label, coinType: (EVM_COIN_TYPE_BIT + chainId) >>> 0, chainId, isEvm: true, aliases };
}

function slip44(name: string, label: string, coinType: number, aliases: string[] = []): Chain {
  return { name, label, coinType, isEvm: false, aliases };
}

const CHAINS: readonly Chain[] = Object.freeze([
  { name: 'eth', label: 'Ethereum', coinType: ETH_COIN_TYPE, chainId: 1, isEvm: true, aliases: ['ethereum'] },
  {
    name: 'default',
    label: 'Default EVM',
    coinType: DEFAULT_EVM_COIN_TYPE,
    chainId: 0,
    isEvm: true,
    aliases: [],
  },
  slip44('sol', 'Solana', 501, ['solana']),
  evm('arb', 'Arbitrum One', 42161, ['arb1', 'arbitrum']),
  evm('op', 'Optimism', 10, ['optimism']),
  evm('base', 'Base', 8453),
  evm('polygon', 'Polygon', 137, ['matic', 'pol']),
  evm('bsc', 'BNB Smart Chain', 56),
  evm('avax', 'Avalanche C-Chain', 43114, ['avaxc', 'avalanche']),
  evm('gnosis', 'Gnosis', 100, ['gno', 'xdai']),
  evm('zksync', 'zkSync Era', 324),
  slip44('cosmos', 'Cosmos Hub', 118, ['atom']),
  slip44('near', 'NEAR Protocol', 397),
  evm('linea', 'Linea', 59144),
  evm('scroll', 'Scroll', 534352, ['scr']),
  slip44('btc', 'Bitcoin', 0, ['bitcoin']),
  slip44('starknet', 'Starknet', 9004, ['strk']),
  slip44('sui', 'Sui', 784),
  evm('unichain', 'Unichain', 130),
  evm('berachain', 'Berachain', 80094, ['bera']),
  evm('world_chain', 'World Chain', 480, ['worldchain', 'wld']),
  evm('zora', 'Zora', 7777777),
  evm('celo', 'Celo', 42220),
  slip44('aptos', 'Aptos', 637, ['apt']),
  slip44('algorand', 'Algorand', 283, ['algo']),
  evm('monad', 'Monad', 143, ['mon']),
  slip44('dot', 'Polkadot', 354, ['polkadot']),
  // Listed by the Namespace SDK (ChainName.Push, chain id 42101); not in address-encoder.
  evm('push', 'Push Chain', 42101),
  // Common extras.
  slip44('ltc', 'Litecoin', 2, ['litecoin']),
  slip44('doge', 'Dogecoin', 3, ['dogecoin']),
  slip44('xrp', 'XRP Ledger', 144, ['ripple']),
  slip44('xlm', 'Stellar', 148, ['stellar']),
  slip44('trx', 'Tron', 195, ['tron']),
  slip44('fil', 'Filecoin', 461, ['filecoin']),
  slip44('ada', 'Cardano', 1815, ['cardano']),
  evm('mantle', 'Mantle', 5000),
  evm('blast', 'Blast', 81457),
  evm('sonic', 'Sonic', 146),
  evm('ink', 'Ink', 57073),
]);

const byName = new Map<string, Chain>();
const byCoinType = new Map<number, Chain>();
for (const chain of CHAINS) {
  for (const key of [chain.name, ...chain.aliases]) byName.set(key, chain);
  byCoinType.set(chain.coinType, chain);
}

/** All known chains, in the Namespace SDK's order followed by the extras. */
export function listChains(): readonly Chain[] {
  return CHAINS;
}

/** Chain by short name or alias, case-insensitive ('base', 'ARB', 'arb1', 'matic'). */
export function chainByName(name: string): Chain | undefined {
  return byName.get(name.trim().toLowerCase());
}

export function chainByCoinType(coinType: number): Chain | undefined {
  return byCoinType.get(coinType);
}

/** True for a coin type that fits the uint256-encoded uint32 range ENS uses (0..0xffffffff). */
export function isValidCoinType(coinType: number): boolean {
  return Number.isInteger(coinType) && coinType >= 0 && coinType <= MAX_COIN_TYPE;
}

/**
 * ENSIP-11 coin type of an EVM chain id: 1 → 60, 0 → 0x80000000 (ENSIP-19 default),
 * n → 0x80000000 | n. Undefined when the chain id is not an integer in 0..0x7fffffff.
 */
export function coinTypeFromChainId(chainId: number): number | undefined {
  if (!Number.isInteger(chainId) || chainId < 0 || chainId >= EVM_COIN_TYPE_BIT) return undefined;
  if (chainId === 1) return ETH_COIN_TYPE;
  return (EVM_COIN_TYPE_BIT + chainId) >>> 0;
}

/** EVM chain id of a coin type: 60 → 1, 0x80000000 → 0, ENSIP-11 types → chain id; otherwise undefined. */
export function chainIdFromCoinType(coinType: number): number | undefined {
  if (coinType === ETH_COIN_TYPE) return 1;
  if (!isEvmCoinType(coinType)) return undefined;
  return coinType - EVM_COIN_TYPE_BIT;
}

/** True for 60 and for every ENSIP-11 coin type (0x80000000..0xffffffff, including the default). */
export function isEvmCoinType(coinType: number): boolean {
  return coinType === ETH_COIN_TYPE || (isValidCoinType(coinType) && coinType >= EVM_COIN_TYPE_BIT);
}

/**
 * When `coin` is the chain id of a known EVM chain rather than a coin type (the Namespace SDK sends 8453 for Base):
 * the sentence naming the ENSIP-11 coin type to send instead, e.g. `8453 is Base's chain id; its ENSIP-11 coin
 * type is 2147492101`. Undefined for any other number, and for the default EVM entry (chain id 0, coin 0 is BTC).
 */
export function chainIdAsCoinTypeHint(coin: number): string | undefined {
  const chain = CHAINS.find((c) => c.isEvm && c.chainId === coin && coin > 0);
  if (!chain) return undefined;
  return `${coin} is ${chain.label}'s chain id; its ENSIP-11 coin type is ${chain.coinType}`;
}
