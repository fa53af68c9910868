import type { AddressNames } from '@nrp/client/resolver';
import {
  compareOwnedNames,
  describeSources,
  fromAddressNames,
  kindOf,
  mergeNames,
  type OwnedName,
} from '../src/page/owned-names';

const page: AddressNames = {
  address: '0x0000000000000000000000000000000000000001',
  primaryName: 'demo.eth',
  names: [
    {
      name: 'mine.mint.eth',
      source: 'minted',
      parentName: 'mint.eth',
      network: 'sepolia',
      expiry: null,
      isPrimary: false,
    },
    {
      name: 'demo.l2.eth',
      source: 'minted',
      parentName: 'l2.eth',
      network: 'base-sepolia',
      expiry: 1_900_000_000,
      isPrimary: false,
    },
    { name: 'team.offchain.eth', source: 'offchain', parentName: 'offchain.eth', isPrimary: false },
  ],
  nextCursor: null,
  partial: false,
  failedSources: [],
};

describe('the names of a wallet', () => {
  it('takes the primary name and every listed name from resolver-svc, each with its kind and source in words', () => {
    const found = fromAddressNames(page);
    expect(found.map((n) => [n.name, kindOf(n), describeSources(n)])).toEqual([
      ['demo.eth', 'onchain', 'your primary name'],
      ['mine.mint.eth', 'onchain', 'minted here on sepolia'],
      ['demo.l2.eth', 'l2', 'minted here on base-sepolia'],
      ['team.offchain.eth', 'offchain', 'offchain subname of offchain.eth'],
    ]);
  });

  it('lists a name found by several sources once, with every source, and reports only what changed', () => {
    const known = new Map<string, OwnedName>();
    expect(mergeNames(known, fromAddressNames(page))).toHaveLength(4);
    const changed = mergeNames(known, [
      { name: 'Demo.eth', sources: ['key'] },
      { name: 'offchain.eth', sources: ['key'] },
      { name: 'mine.mint.eth', sources: ['minted'] },
    ]);
    expect(changed.map((n) => n.name)).toEqual(['demo.eth', 'offchain.eth']);
    expect(known.get('demo.eth')?.sources).toEqual(['primary', 'key']);
    expect(describeSources(known.get('demo.eth') as OwnedName)).toBe(
      'your primary name · parent of your API keys',
    );
    expect(known.get('mine.mint.eth')).toMatchObject({
      sources: ['minted'],
      network: 'sepolia',
      expiry: null,
    });
    expect([...known.values()].sort(compareOwnedNames).map((n) => n.name)).toEqual([
      'demo.eth',
      'demo.l2.eth',
      'mine.mint.eth',
      'offchain.eth',
      'team.offchain.eth',
    ]);
  });
});
