/**
 * The names the platform can attribute to a wallet, merged by name with every source that named them: its primary
 * name and what resolver-svc's `GET /ens/v2/names/{address}` lists (names minted here on the L1 and on its L2,
 * offchain subnames it owns), the parents of its API keys, and the names the person checked on the page.
 */
import type { AddressNames } from '@nrp/client/resolver';
import { isL2Network, type AnyNetworkName } from '@nrp/ens';

/** Where a name was found, in the order the page lists them. */
export const NAME_SOURCES = ['primary', 'minted', 'key', 'offchain', 'checked'] as const;
export type NameSource = (typeof NAME_SOURCES)[number];

export interface OwnedName {
  name: string;
  /** In NAME_SOURCES order, each once. */
  sources: NameSource[];
  /** Minted names: where the token lives (the L1, or the L2 settling on it). */
  network?: AnyNetworkName;
  /** Minted names: expiry in Unix seconds; null when it has none. */
  expiry?: number | null;
  /** Minted names and offchain subnames: the parent they were made under. */
  parentName?: string;
}

/**
 * What the page can do for a name: `onchain` names (on the page's L1) have a controller and a setup; an `offchain`
 * subname's records live on this platform, under its parent's key; an `l2` name lives in its parent's L2 registry.
 */
export type NameKind = 'onchain' | 'offchain' | 'l2';

export function kindOf(owned: OwnedName): NameKind {
  if (owned.sources.includes('offchain')) return 'offchain';
  return owned.network && isL2Network(owned.network) ? 'l2' : 'onchain';
}

export function describeSources(owned: OwnedName): string {
  const words: Record<NameSource, string> = {
    primary: 'your primary name',
    minted: `minted here${owned.network ? ` on ${owned.network}` : ''}`,
    key: 'parent of your API keys',
    offchain: `offchain subname of ${owned.parentName ?? 'its parent'}`,
    checked: 'checked on this page',
  };
  return owned.sources.map((source) => words[source]).join(' · ');
}

/** One page of resolver-svc's names of an address, its primary name first. */
export function fromAddressNames(page: AddressNames): OwnedName[] {
  const primary: OwnedName[] = page.primaryName ? [{ name: page.primaryName, sources: ['primary'] }] : [];
  return [
    ...primary,
    ...page.names.map((found) => ({
      name: found.name,
      sources: [found.source],
      network: found.network,
      expiry: found.expiry,
      parentName: found.parentName,
    })),
  ];
}

/** Merges `found` into `known` by name (sources united, facts kept); the names that are new or changed. */
export function mergeNames(known: Map<string, OwnedName>, found: OwnedName[]): OwnedName[] {
  const changed = new Map<string, OwnedName>();
  for (const next of found) {
    const name = next.name.toLowerCase();
    const before = known.get(name);
    const sources = NAME_SOURCES.filter((s) => before?.sources.includes(s) || next.sources.includes(s));
    if (before && sources.length === before.sources.length) continue;
    const merged: OwnedName = {
      name,
      sources,
      network: before?.network ?? next.network,
      expiry: before?.expiry ?? next.expiry,
      parentName: before?.parentName ?? next.parentName,
    };
    known.set(name, merged);
    changed.set(name, merged);
  }
  return [...changed.values()];
}

/** The page's order: by the first source (primary name first), then by name. */
export function compareOwnedNames(a: OwnedName, b: OwnedName): number {
  const rank = (owned: OwnedName) => NAME_SOURCES.indexOf(owned.sources[0] ?? 'checked');
  return rank(a) - rank(b) || a.name.localeCompare(b.name);
}
