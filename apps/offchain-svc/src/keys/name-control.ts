import { readNameControl, type NameControl, type NetworkName, type NetworkProviders } from '@nrp/chain';

/** Who controls a name on a network, remembered for a short while per replica. */
export interface NameControlReader {
  /** `fresh`: read the chain now (and remember the answer), whatever is remembered. */
  read(network: NetworkName, name: string, options?: { fresh?: boolean }): Promise<NameControl>;
}

/** Names remembered at most; past it the oldest entries go first. */
const MAX_ENTRIES = 10_000;

/**
 * `readNameControl` (libs/chain) behind a cache of `ttlMs` per (network, name): concurrent reads of one name share
 * one chain read, and a failed read is not remembered. `ttlMs` 0 reads the chain every time.
 */
export function cachedNameControl(
  providers: NetworkProviders,
  ttlMs: number,
  now: () => number = Date.now,
): NameControlReader {
  const entries = new Map<string, { control: Promise<NameControl>; expiresAt: number }>();
  return {
    read(network, name, options = {}) {
      const key = `${network}:${name}`;
      const cached = entries.get(key);
      if (cached && !options.fresh && cached.expiresAt > now()) return cached.control;
      const provider = providers[network];
      const control = readNameControl(provider, provider.config.ens, name);
      entries.delete(key);
      if (ttlMs > 0) {
        entries.set(key, { control, expiresAt: now() + ttlMs });
        control.catch(() => {
          if (entries.get(key)?.control === control) entries.delete(key);
        });
        for (const oldest of entries.keys()) {
          if (entries.size <= MAX_ENTRIES) break;
          entries.delete(oldest);
        }
      }
      return control;
    },
  };
}
