import { L2_NETWORK_NAMES, MINT_NETWORK_NAMES, NETWORK_NAMES, l2sSettlingOn, settlementOf } from '../src';

describe('which L1 a network settles on', () => {
  it('an L2 settles on its L1, an L1 on itself', () => {
    expect(settlementOf('base')).toBe('mainnet');
    expect(settlementOf('base-sepolia')).toBe('sepolia');
    expect(settlementOf('mainnet')).toBe('mainnet');
    expect(settlementOf('sepolia')).toBe('sepolia');
  });

  it('the L2s settling on an L1 are the L2s whose settlement it is', () => {
    expect(l2sSettlingOn('mainnet')).toEqual(['base']);
    expect(l2sSettlingOn('sepolia')).toEqual(['base-sepolia']);
    for (const l1 of NETWORK_NAMES) {
      expect(l2sSettlingOn(l1)).toEqual(L2_NETWORK_NAMES.filter((l2) => settlementOf(l2) === l1));
    }
  });

  it('every network settles on an L1', () => {
    for (const network of MINT_NETWORK_NAMES) expect(NETWORK_NAMES).toContain(settlementOf(network));
  });
});
