import {
  createMintClient,
  createOffchainClient,
  mintResponseSchemas,
  offchainResponseSchemas,
  type MintClient,
  type OffchainClient,
} from '@nrp/client';
import { encodeCursor, type AddressName, type AddressNames, type AddressNamesCursor } from '@nrp/api';
import type { NetworkName } from '@nrp/chain';
import { ETH_COIN_TYPE } from '@nrp/ens';
import type { Logger } from '@nrp/server';
import type { ResultCache } from './cache';
import type { Fresh, Resolution } from './resolution';

/** Names asked of each source per page. */
export const SOURCE_PAGE_SIZE = 50;

export interface AddressNamesOptions {
  mintUrl: string | undefined;
  offchainUrl: string | undefined;
  timeoutMs: number;
  ttlMs: number;
  cache: ResultCache;
  resolution: Resolution;
  logger: Logger;
}

type Source = AddressNames['failedSources'][number];

/** One source's part of a page: its names and where it continues (undefined: no more), or its failure. */
type SourcePage<P> =
  { names: Omit<AddressName, 'isPrimary'>[]; next: P | undefined } | { failed: true; retry: P };

/** A page with a failed source: answered, never cached. */
class PartialPage extends Error {
  constructor(readonly page: AddressNames) {
    super('a source of the names failed');
  }
}

/**
 * The names an address holds, merged from mint-svc's index (names minted through our controller, on the request's
 * network) and offchain-svc's subnames owned by the address, each source called over its HTTP API. A source that
 * fails is reported (`partial`, `failedSources`) and its position kept in `nextCursor`, so the next page asks it
 * again; the other source's names are still answered.
 */
export class AddressNamesLookup {
  private readonly mint: MintClient | undefined;
  private readonly offchain: OffchainClient | undefined;

  constructor(private readonly options: AddressNamesOptions) {
    const fetchWithTimeout: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
    this.mint = options.mintUrl
      ? createMintClient({
          baseUrl: options.mintUrl,
          responseSchemas: mintResponseSchemas,
          fetch: fetchWithTimeout,
        })
      : undefined;
    this.offchain = options.offchainUrl
      ? createOffchainClient({
          baseUrl: options.offchainUrl,
          responseSchemas: offchainResponseSchemas,
          fetch: fetchWithTimeout,
        })
      : undefined;
  }

  async names(
    network: NetworkName,
    address: string,
    cursor: AddressNamesCursor | undefined,
    fresh: boolean,
  ): Promise<Fresh<AddressNames>> {
    const position = cursor ?? { minted: '', offchainPage: 1 };
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
    const [minted, offchain, primary] = await Promise.all([
      this.mintedPage(network, address, position.minted),
      this.offchainPage(address, position.offchainPage),
      this.options.resolution.primaryName(network, address, ETH_COIN_TYPE, fresh).then(
        (answer) => ({ name: answer.value, failed: false }),
        (err: unknown) => {
          this.options.logger.warn({ err, address }, 'primary name lookup failed');
          return { name: null, failed: true };
        },
      ),
    ]);
    const failedSources: Source[] = [];
    const next: AddressNamesCursor = {};
    const names: AddressName[] = [];
    const take = <P>(source: Source, page: SourcePage<P>, set: (p: P) => void) => {
      if ('failed' in page) {
        failedSources.push(source);
        set(page.retry);
        return;
      }
      names.push(...page.names.map((n) => ({ ...n, isPrimary: n.name === primary.name })));
      if (page.next !== undefined) set(page.next);
    };
    take('minted', minted, (p) => (next.minted = p));
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

  private async mintedPage(
    network: NetworkName,
    owner: string,
    cursor: string | undefined,
  ): Promise<SourcePage<string>> {
    if (cursor === undefined || !this.mint) return { names: [], next: undefined };
    try {
      const page = await this.mint.listNames({
        network,
        owner,
        size: SOURCE_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
      return {
        names: page.items.map((n) => ({
          name: n.name,
          source: 'minted' as const,
          parentName: n.parentName,
          expiry: n.expiry,
        })),
        next: page.nextCursor ?? undefined,
      };
    } catch (err) {
      this.options.logger.warn({ err, owner }, 'mint-svc names failed');
      return { failed: true, retry: cursor };
    }
  }

  private async offchainPage(owner: string, page: number | undefined): Promise<SourcePage<number>> {
    if (page === undefined || !this.offchain) return { names: [], next: undefined };
    try {
      const answer = await this.offchain.searchSubnames({ owner, page, size: SOURCE_PAGE_SIZE });
      return {
        names: answer.items.map((s) => ({
          name: s.fullName,
          source: 'offchain' as const,
          parentName: s.parentName,
        })),
        next: page * SOURCE_PAGE_SIZE < answer.totalItems ? page + 1 : undefined,
      };
    } catch (err) {
      this.options.logger.warn({ err, owner }, 'offchain-svc names failed');
      return { failed: true, retry: page };
    }
  }
}
