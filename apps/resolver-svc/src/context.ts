import type { RateLimitSpec, ServiceContext } from '@nrp/server';
import type { Config } from './config';
import type { AddressNamesLookup } from './names/address-names';
import type { RenderedAnswers } from './resolution/answers';
import type { Resolution } from './resolution/resolution';

/**
 * Everything the routes of this service use, built once in `createService`: the resolution (with its cache), the
 * rendered answers, the names of an address, and the limit on cache-bypassing (`noCache=true`) requests, which every
 * resolving route shares. A request without `network` uses `config.DEFAULT_NETWORK`.
 */
export interface ResolverContext extends ServiceContext<Config> {
  resolution: Resolution;
  /** The rendered bodies of cached answers, kept as long as the cached values they were made from. */
  rendered: RenderedAnswers;
  /** The names an address holds, from mint-svc and offchain-svc. */
  addressNames: AddressNamesLookup;
  noCacheLimit: RateLimitSpec;
}
