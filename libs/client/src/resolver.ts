/** Typed client of resolver-svc (name resolution, `/ens/v2`). */
import { requestJson, type ClientOptions } from './http';
import type {
  AddressNames,
  AddressesResult,
  BulkProfileResult,
  BulkReverseResult,
  ChainsResult,
  Profile,
  ResolverNetwork,
  ReverseProfile,
  TextsResult,
} from '@nrp/api/resolver';

export type {
  AddressName,
  AddressNames,
  AddressRecord,
  AddressesResult,
  BulkProfileResult,
  BulkReverseResult,
  ChainInfo,
  ChainsResult,
  ContenthashRecord,
  Profile,
  ResolverNetwork,
  ReverseProfile,
  TextRecord,
  TextsResult,
} from '@nrp/api/resolver';
export * from './http';

export interface ResolveOptions {
  network?: ResolverNetwork;
  noCache?: boolean;
}

export interface ProfileOptions extends ResolveOptions {
  contenthash?: boolean;
  texts?: string[];
  /** Chain names or coin types. */
  addresses?: Array<string | number>;
}

export interface ReverseOptions extends ProfileOptions {
  /** ENSIP-19 coin type of the primary name (default 60); not together with `chain`. */
  coinType?: number;
  /** Chain name whose primary name to read (`base`); not together with `coinType`. */
  chain?: string;
}

function list(values: ReadonlyArray<string | number> | undefined): string | undefined {
  return values === undefined ? undefined : values.join(',');
}

function profileQuery(o: ProfileOptions): Record<string, string | boolean | undefined> {
  return {
    network: o.network,
    noCache: o.noCache,
    contenthash: o.contenthash,
    texts: list(o.texts),
    addresses: list(o.addresses),
  };
}

export interface ResolverClient {
  /** GET /ens/v2/profile/{name} */
  getProfile(name: string, options?: ProfileOptions): Promise<Profile>;
  /** GET /ens/v2/profile/bulk?names=… (at most 20 names). */
  getProfiles(names: string[], options?: ProfileOptions): Promise<BulkProfileResult>;
  /** GET /ens/v2/addresses/{name}; give `coins` or `chains`, not both. */
  getAddresses(
    name: string,
    options?: ResolveOptions & { coins?: number[]; chains?: string[] },
  ): Promise<AddressesResult>;
  /** GET /ens/v2/texts/{name} */
  getTexts(name: string, options?: ResolveOptions & { keys?: string[] }): Promise<TextsResult>;
  /** GET /ens/v2/reverse/{address}/profile */
  getReverseProfile(address: string, options?: ReverseOptions): Promise<ReverseProfile>;
  /** GET /ens/v2/reverse/bulk?addresses=… (at most 20 addresses). */
  getReverseProfiles(addresses: string[], options?: ReverseOptions): Promise<BulkReverseResult>;
  /** GET /ens/v2/chains */
  getChains(): Promise<ChainsResult>;
  /**
   * GET /ens/v2/names/{address}: the names `address` holds (minted through our controller on the network and on the
   * L2 settling on it, each with its `network`, and offchain subnames), one page; pass the answer's `nextCursor` as
   * `cursor` for the next.
   */
  names(address: string, options?: ResolveOptions & { cursor?: string }): Promise<AddressNames>;
}

/** Typed client of resolver-svc. Failures throw ServiceError with the problem's `code`. */
export function createResolverClient(options: ClientOptions): ResolverClient {
  return {
    getProfile: (name, opts = {}) =>
      requestJson(options, 'getProfile', `/ens/v2/profile/${encodeURIComponent(name)}`, {
        query: profileQuery(opts),
      }),
    getProfiles: (names, opts = {}) =>
      requestJson(options, 'getProfiles', '/ens/v2/profile/bulk', {
        query: { ...profileQuery(opts), names: names.join(',') },
      }),
    getAddresses: (name, opts = {}) =>
      requestJson(options, 'getAddresses', `/ens/v2/addresses/${encodeURIComponent(name)}`, {
        query: {
          network: opts.network,
          noCache: opts.noCache,
          coins: list(opts.coins),
          chains: list(opts.chains),
        },
      }),
    getTexts: (name, opts = {}) =>
      requestJson(options, 'getTexts', `/ens/v2/texts/${encodeURIComponent(name)}`, {
        query: { network: opts.network, noCache: opts.noCache, keys: list(opts.keys) },
      }),
    getReverseProfile: (address, opts = {}) =>
      requestJson(options, 'getReverseProfile', `/ens/v2/reverse/${encodeURIComponent(address)}/profile`, {
        query: { ...profileQuery(opts), coinType: opts.coinType?.toString(), chain: opts.chain },
      }),
    getReverseProfiles: (addresses, opts = {}) => {
      const { addresses: records, ...rest } = profileQuery(opts);
      return requestJson(options, 'getReverseProfiles', '/ens/v2/reverse/bulk', {
        query: {
          ...rest,
          coinType: opts.coinType?.toString(),
          chain: opts.chain,
          records,
          addresses: addresses.join(','),
        },
      });
    },
    getChains: () => requestJson(options, 'getChains', '/ens/v2/chains'),
    names: (address, opts = {}) =>
      requestJson(options, 'names', `/ens/v2/names/${encodeURIComponent(address)}`, {
        query: { network: opts.network, noCache: opts.noCache, cursor: opts.cursor },
      }),
  };
}
