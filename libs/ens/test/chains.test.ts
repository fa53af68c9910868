import { coinNameToTypeMap } from '@ensdomains/address-encoder';
import {
  chainByCoinType,
  chainByName,
  chainIdAsCoinTypeHint,
  chainIdFromCoinType,
  coinTypeFromChainId,
  DEFAULT_EVM_COIN_TYPE,
  isEvmCoinType,
  isValidCoinType,
  listChains,
} from '../src';

/** Every ChainName of the Namespace SDK (@thenamespace/offchain-manager). */
const NAMESPACE_CHAINS = [
  'eth',
  'default',
  'sol',
  'arb',
  'op',
  'base',
  'polygon',
  'bsc',
  'avax',
  'gnosis',
  'zksync',
  'cosmos',
  'near',
  'linea',
  'scroll',
  'btc',
  'starknet',
  'sui',
  'unichain',
  'berachain',
  'world_chain',
  'zora',
  'celo',
  'aptos',
  'algorand',
  'monad',
  'dot',
  'push',
];

describe('chains table', () => {
  it('lists every Namespace SDK chain', () => {
    const names = listChains().map((c) => c.name);
    for (const name of NAMESPACE_CHAINS) expect(names).toContain(name);
  });

  it('has unique names, aliases and coin types', () => {
    const keys = listChains().flatMap((c) => [c.name, ...c.aliases]);
    expect(new Set(keys).size).toBe(keys.length);
    const coins = listChains().map((c) => c.coinType);
    expect(new Set(coins).size).toBe(coins.length);
  });

  it('gives EVM chains ENSIP-11 coin types and non-EVM chains no chain id', () => {
    for (const chain of listChains()) {
      expect(isEvmCoinType(chain.coinType)).toBe(chain.isEvm);
      if (chain.isEvm) {
        expect(chain.chainId).toBeDefined();
        expect(coinTypeFromChainId(chain.chainId ?? -1)).toBe(chain.coinType);
      } else {
        expect(chain.chainId).toBeUndefined();
      }
    }
  });

  it.each([
    ['eth', 60, 1],
    ['default', 0x80000000, 0],
    ['base', 2147492101, 8453],
    ['op', 2147483658, 10],
    ['arb', 2147525809, 42161],
    ['polygon', 2147483785, 137],
    ['bsc', 2147483704, 56],
    ['avax', 2147526762, 43114],
    ['gnosis', 2147483748, 100],
    ['zksync', 2147483972, 324],
    ['linea', 2147542792, 59144],
    ['scroll', 2148018000, 534352],
    ['unichain', 0x80000000 + 130, 130],
    ['berachain', 0x80000000 + 80094, 80094],
    ['world_chain', 0x80000000 + 480, 480],
    ['zora', 2155261425, 7777777],
    ['celo', 2147525868, 42220],
    ['monad', 0x80000000 + 143, 143],
  ])('EVM chain %s: coin type %d, chain id %d', (name, coinType, chainId) => {
    const chain = chainByName(name);
    expect(chain).toMatchObject({ name, coinType, chainId, isEvm: true });
    expect(chainByCoinType(coinType)?.name).toBe(name);
    expect(chainIdFromCoinType(coinType)).toBe(chainId);
  });

  it.each([
    ['btc', 0],
    ['sol', 501],
    ['cosmos', 118],
    ['near', 397],
    ['starknet', 9004],
    ['sui', 784],
    ['aptos', 637],
    ['algorand', 283],
    ['dot', 354],
  ])('non-EVM chain %s: SLIP-44 coin type %d', (name, coinType) => {
    expect(chainByName(name)).toMatchObject({ name, coinType, isEvm: false });
    expect(chainIdFromCoinType(coinType)).toBeUndefined();
  });

  it('agrees with @ensdomains/address-encoder wherever a name or alias is known there', () => {
    const known: Record<string, number> = coinNameToTypeMap;
    // Namespace's 'avax' is the C-Chain (EVM); address-encoder's 'avax' (9000) is the X-Chain.
    const namespaceMeaning = new Set(['avax']);
    expect(known.avax).toBe(9000);
    let checked = 0;
    for (const chain of listChains()) {
      for (const key of [chain.name, ...chain.aliases]) {
        if (namespaceMeaning.has(key)) continue;
        const coinType = known[key];
        if (coinType === undefined) continue;
        expect([key, coinType]).toEqual([key, chain.coinType]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(25);
  });

  it('looks names up case-insensitively and through aliases', () => {
    expect(chainByName('BASE')?.name).toBe('base');
    expect(chainByName('arb1')?.name).toBe('arb');
    expect(chainByName('matic')?.name).toBe('polygon');
    expect(chainByName('nope')).toBeUndefined();
    expect(chainByCoinType(123456)).toBeUndefined();
  });
});

describe('coin type helpers', () => {
  it('maps chain ids to ENSIP-11 coin types', () => {
    expect(coinTypeFromChainId(1)).toBe(60);
    expect(coinTypeFromChainId(0)).toBe(DEFAULT_EVM_COIN_TYPE);
    expect(coinTypeFromChainId(11155111)).toBe(2158638759);
    expect(coinTypeFromChainId(0x7fffffff)).toBe(0xffffffff);
    expect(coinTypeFromChainId(0x80000000)).toBeUndefined();
    expect(coinTypeFromChainId(-1)).toBeUndefined();
    expect(coinTypeFromChainId(1.5)).toBeUndefined();
  });

  it('classifies coin types', () => {
    expect(isEvmCoinType(60)).toBe(true);
    expect(isEvmCoinType(0x80000000)).toBe(true);
    expect(isEvmCoinType(0xffffffff)).toBe(true);
    expect(isEvmCoinType(0)).toBe(false);
    expect(isEvmCoinType(501)).toBe(false);
    expect(isEvmCoinType(0x100000000)).toBe(false);
    expect(isValidCoinType(0)).toBe(true);
    expect(isValidCoinType(-1)).toBe(false);
    expect(isValidCoinType(0x100000000)).toBe(false);
    expect(chainIdFromCoinType(60)).toBe(1);
    expect(chainIdFromCoinType(2158638759)).toBe(11155111);
  });
});

describe('chainIdAsCoinTypeHint', () => {
  it('names the ENSIP-11 coin type of a known EVM chain id sent as a coin', () => {
    expect(chainIdAsCoinTypeHint(8453)).toBe("8453 is Base's chain id; its ENSIP-11 coin type is 2147492101");
    expect(chainIdAsCoinTypeHint(10)).toBe("10 is Optimism's chain id; its ENSIP-11 coin type is 2147483658");
    expect(chainIdAsCoinTypeHint(137)).toBe(
      "137 is Polygon's chain id; its ENSIP-11 coin type is 2147483785",
    );
    expect(chainIdAsCoinTypeHint(1)).toBe("1 is Ethereum's chain id; its ENSIP-11 coin type is 60");
  });

  it('says nothing for numbers that are no known chain id', () => {
    expect(chainIdAsCoinTypeHint(0)).toBeUndefined();
    expect(chainIdAsCoinTypeHint(60)).toBeUndefined();
    expect(chainIdAsCoinTypeHint(2147492101)).toBeUndefined();
  });
});
