import {
  encodeCursor,
  type AddressName,
  type AddressNames,
  type AddressNameSource,
  type AddressNamesCursor,
} from '@nrp/api';
import { l2sSettlingOn } from '@nrp/chain';
import { ETH_COIN_TYPE, type NetworkName } from '@nrp/ens';
import type { ResultCache } from '../resolution/cache';
import type { Fresh, Resolution } from '../resolution/resolution';
import { NameUpstreams, type NameUpstreamsOptions, type SourcePage } from './upstreams';

export interface AddressNamesOptions extends NameUpstreamsOptions {
  ttlMs: number;
  cache: ResultCache;
  resolution: Resolution;
}

/** The first page of every source. */
const FIRST_PAGE: AddressNamesCursor = { minted: '', mintedL2: '', offchainPage: 1 };

const NO_NAMES: SourcePage<never> = { names: [], next: undefined };

/** A page with a failed source: answered, never cached. */
class PartialPage extends Error {
  constructor(readonly page: AddressNames) {
    super('a source of the names failed');
  }
}

/**
 * The names an address holds, merged from mint-svc's index on the request's network (names minted through our
 * controller), mint-svc's index on the L2 that settles on it (names minted on our L2 registries, which resolve from
 * that L1) and offchain-svc's subnames owned by the address. A source that fails is reported (`partial`,
 * `failedSources`) and its position kept in `nextCursor`, so the next page asks it again; the other sources' names
 * are still answered.
 */
export class AddressNamesLookup {
  private readonly upstreams: NameUpstreams;

  constructor(private readonly options: AddressNamesOptions) {
    this.upstreams = new NameUpstreams(options);
  }

  async names(
    network: NetworkName,
    address: string,
    cursor: AddressNamesCursor | undefined,
    fresh: boolean,
  ): Promise<Fresh<AddressNames>> {
    const position = cursor ?? FIRST_PAGE;
    const key = `v2:${network}:names:${address.toLowerCase()}:${encodeCursor(position)}`;
    try {
      const hit = await this.options.cache.get(
        key,
        this.options.ttlMs,
        async () => {
          const page = await this.load(network, address, position, fresh);
          if (page.partial) throw new PartialPage(page);
          return page;
        },
        fresh,
      );
      return { value: hit.value, expiresAt: hit.expiresAt };
    } catch (err) {
      if (err instanceof PartialPage) return { value: err.page, expiresAt: Date.now() };
      throw err;
    }
  }

  private async load(
    network: NetworkName,
    address: string,
    position: AddressNamesCursor,
    fresh: boolean,
  ): Promise<AddressNames> {
    // The L2 whose names resolve from `network` (it settles there), if any.
    const [l2] = l2sSettlingOn(network);
    const [minted, mintedL2, offchain, primary] = await Promise.all([
      this.upstreams.mintedPage(network, address, position.minted),
      l2 ? this.upstreams.mintedPage(l2, address, position.mintedL2) : NO_NAMES,
      this.upstreams.offchainPage(address, position.offchainPage),
      this.options.resolution.primaryName(network, address, ETH_COIN_TYPE, fresh).then(
        (answer) => ({ name: answer.value, failed: false }),
        (err: unknown) => {
          this.options.logger.warn({ err, address }, 'primary name lookup failed');
          return { name: null, failed: true };
        },
      ),
    ]);
    const failedSources: AddressNameSource[] = [];
    const next: AddressNamesCursor = {};
    const names: AddressName[] = [];
    const take = <P>(source: AddressNameSource, page: SourcePage<P>, set: (p: P) => void) => {
      if ('failed' in page) {
        failedSources.push(source);
        set(page.retry);
        return;
      }
      names.push(...page.names.map((n) => ({ ...n, isPrimary: n.name === primary.name })));
      if (page.next !== undefined) set(page.next);
    };
    take('minted', minted, (p) => (next.minted = p));
    take('mintedL2', mintedL2, (p) => (next.mintedL2 = p));
    take('offchain', offchain, (p) => (next.offchainPage = p));
    if (primary.failed) failedSources.push('primaryName');
    return {
      address,
      primaryName: primary.name,
      names,
      nextCursor: Object.keys(next).length > 0 ? encodeCursor(next) : null,
      partial: failedSources.length > 0,
      failedSources,
    };
  }
}
