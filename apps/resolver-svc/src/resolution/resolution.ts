/**
 * Forward and reverse resolution through each network's universal resolver, behind the result cache.
 * One forward lookup (all selected records) is ONE eth_call (two with CCIP-Read); a reverse lookup is one
 * eth_call for the verified primary name, then a forward lookup for its profile.
 */
import {
  UpstreamError,
  universalResolve,
  universalReverse,
  type ChainProvider,
  type NetworkName,
  type NetworkProviders,
  withDeadline,
} from '@nrp/chain';
import type { Profile, ReverseProfile } from '@nrp/api';
import { normalizeName } from '@nrp/ens';
import type { CacheResult, ResultCache } from './cache';
import {
  SUMMARY_TEXT_KEYS,
  decodeRecords,
  recordCalls,
  selectionKeys,
  withTexts,
  type RecordSelection,
  type ResolvedRecords,
} from './records';

export interface ResolutionOptions {
  /** The service's providers (`createNetworkProviders`), each with its network's config. */
  providers: NetworkProviders;
  cache: ResultCache;
  forwardTtlMs: number;
  reverseTtlMs: number;
  /** Upper bound of one lookup; default 3 × the network's RPC timeout. */
  resolveTimeoutMs?: number;
  /** metadata-svc's public base URL: reverse profiles with an avatar record get `avatarUrl` there. */
  avatarBaseUrl?: string | undefined;
}

export interface Fresh<T> {
  value: T;
  /** Unix ms when the answer stops being fresh (drives Cache-Control). */
  expiresAt: number;
}

/** The UpstreamError (code TIMEOUT) of a resolution that took longer than `ms`. */
function resolutionTimeout(ms: number, context: string): () => UpstreamError {
  return () => {
    const message = `no answer within ${ms} ms`;
    return new UpstreamError(`${context}: ${message}`, { upstreamCode: 'TIMEOUT', upstreamMessage: message });
  };
}

/** The primary name as stored, when it is a normalised ENS name; anything else does not count (ENSIP-19). */
function normalisedOrNull(name: string | null): string | null {
  if (name === null || name === '') return null;
  try {
    return normalizeName(name) === name ? name : null;
  } catch {
    return null;
  }
}

export function toProfile(name: string, records: ResolvedRecords): Profile {
  const profile: Profile = { name, texts: records.texts, addresses: records.addresses };
  if (records.contenthash) profile.contenthash = records.contenthash;
  if (records.resolver) profile.resolver = records.resolver;
  return profile;
}

function textValue(records: ResolvedRecords, key: string): string | null {
  const record = records.texts.find((t) => t.key === key);
  return record?.exists ? record.value : null;
}

export function noReverseRecord(address: string, coinType: number): ReverseProfile {
  return {
    address,
    coinType,
    hasReverseRecord: false,
    name: null,
    avatar: null,
    avatarUrl: null,
    displayName: null,
    description: null,
    profile: null,
  };
}

export class Resolution {
  private readonly selectionKey = selectionKeys();

  constructor(private readonly options: ResolutionOptions) {}

  /** The cache key of a name's selected records (keys carry a format version). */
  private recordsKey(network: NetworkName, name: string, selection: RecordSelection): string {
    return `v1:${network}:fwd:${name}:${this.selectionKey(selection)}`;
  }

  provider(network: NetworkName): ChainProvider {
    return this.options.providers[network];
  }

  private timeoutMs(network: NetworkName): number {
    return this.options.resolveTimeoutMs ?? this.provider(network).config.rpcTimeoutMs * 3;
  }

  /** The cached records `records` would answer, if they are in this process's memory and fresh. */
  cachedRecords(
    network: NetworkName,
    name: string,
    selection: RecordSelection,
  ): Fresh<ResolvedRecords> | undefined {
    return this.options.cache.peek<ResolvedRecords>(this.recordsKey(network, name, selection));
  }

  /** The selected records of `name` (normalised), cached per network, name and selection (keys carry a format version). */
  async records(
    network: NetworkName,
    name: string,
    selection: RecordSelection,
    fresh = false,
  ): Promise<Fresh<ResolvedRecords>> {
    const hit: CacheResult<ResolvedRecords> = await this.options.cache.get(
      this.recordsKey(network, name, selection),
      this.options.forwardTtlMs,
      async () => {
        const provider = this.provider(network);
        const { config } = provider;
        const answer = await withDeadline(
          universalResolve(
            provider,
            config.ens.universalResolver,
            name,
            recordCalls(name, selection),
            config.batchGatewayUrls,
          ),
          this.timeoutMs(network),
          resolutionTimeout(this.timeoutMs(network), `resolving ${name} on ${network}`),
        );
        return decodeRecords(selection, answer.resolver, answer.results);
      },
      fresh,
    );
    return { value: hit.value, expiresAt: hit.expiresAt };
  }

  /**
   * The verified ENSIP-19 primary name of `address` (checksummed) for `coinType`, or null; cached per network,
   * coin type and address.
   */
  async primaryName(
    network: NetworkName,
    address: string,
    coinType: number,
    fresh = false,
  ): Promise<Fresh<string | null>> {
    const key = `v2:${network}:rev:${coinType}:${address.toLowerCase()}`;
    const hit = await this.options.cache.get(
      key,
      this.options.reverseTtlMs,
      async () => {
        const provider = this.provider(network);
        const { config } = provider;
        const answer = await withDeadline(
          universalReverse(
            provider,
            config.ens.universalResolver,
            address,
            coinType,
            config.batchGatewayUrls,
          ),
          this.timeoutMs(network),
          resolutionTimeout(
            this.timeoutMs(network),
            `reverse resolving ${address} (coin type ${coinType}) on ${network}`,
          ),
        );
        return normalisedOrNull(answer.name);
      },
      fresh,
    );
    return { value: hit.value, expiresAt: hit.expiresAt };
  }

  /**
   * Reverse profile (spec rule 3): only a verified primary name counts. The summary text keys (avatar, name,
   * description) are always resolved; the profile lists the requested ones.
   */
  async reverseProfile(
    network: NetworkName,
    address: string,
    coinType: number,
    selection: RecordSelection,
    fresh = false,
  ): Promise<Fresh<ReverseProfile>> {
    const primary = await this.primaryName(network, address, coinType, fresh);
    if (primary.value === null) {
      return { value: noReverseRecord(address, coinType), expiresAt: primary.expiresAt };
    }
    const name = primary.value;
    const full = withTexts(selection, Object.values(SUMMARY_TEXT_KEYS));
    const forward = await this.records(network, name, full, fresh);
    const requested = new Set(selection.texts);
    const records = forward.value;
    const avatar = textValue(records, SUMMARY_TEXT_KEYS.avatar);
    const base = this.options.avatarBaseUrl;
    return {
      value: {
        address,
        coinType,
        hasReverseRecord: true,
        name,
        avatar,
        avatarUrl: avatar && base ? `${base}/${network}/avatar/${encodeURIComponent(name)}` : null,
        displayName: textValue(records, SUMMARY_TEXT_KEYS.displayName),
        description: textValue(records, SUMMARY_TEXT_KEYS.description),
        profile: toProfile(name, { ...records, texts: records.texts.filter((t) => requested.has(t.key)) }),
      },
      expiresAt: Math.min(primary.expiresAt, forward.expiresAt),
    };
  }
}
