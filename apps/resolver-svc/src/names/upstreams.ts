import {
  createMintClient,
  createOffchainClient,
  mintResponseSchemas,
  offchainResponseSchemas,
  type MintClient,
  type OffchainClient,
} from '@nrp/client';
import type { AddressName } from '@nrp/api';
import type { AnyNetworkName } from '@nrp/ens';
import type { Logger } from '@nrp/server';

export interface NameUpstreamsOptions {
  mintUrl: string | undefined;
  offchainUrl: string | undefined;
  timeoutMs: number;
  /** Names asked of each source per page. */
  pageSize: number;
  logger: Logger;
}

/** One source's part of a page: its names and where it continues (undefined: no more), or its failure. */
export type SourcePage<P> =
  { names: Omit<AddressName, 'isPrimary'>[]; next: P | undefined } | { failed: true; retry: P };

/**
 * The upstream services that know which names an address holds (mint-svc's index, offchain-svc's subnames), each
 * called over its HTTP API through @nrp/client within NAMES_UPSTREAM_TIMEOUT_MS.
 */
export class NameUpstreams {
  private readonly mintClient: MintClient | undefined;
  private readonly offchainClient: OffchainClient | undefined;

  constructor(private readonly options: NameUpstreamsOptions) {
    const fetchWithTimeout: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
    this.mintClient = options.mintUrl
      ? createMintClient({
          baseUrl: options.mintUrl,
          responseSchemas: mintResponseSchemas,
          fetch: fetchWithTimeout,
        })
      : undefined;
    this.offchainClient = options.offchainUrl
      ? createOffchainClient({
          baseUrl: options.offchainUrl,
          responseSchemas: offchainResponseSchemas,
          fetch: fetchWithTimeout,
        })
      : undefined;
  }

  /**
   * A page of mint-svc's index of `network` (an L1, or an L2 whose tokens are on our L2 registries) held by
   * `owner`; `cursor` is mint-svc's own, empty for the first page.
   */
  async mintedPage(
    network: AnyNetworkName,
    owner: string,
    cursor: string | undefined,
  ): Promise<SourcePage<string>> {
    if (cursor === undefined || !this.mintClient) return { names: [], next: undefined };
    try {
      const page = await this.mintClient.listNames({
        network,
        owner,
        size: this.options.pageSize,
        ...(cursor ? { cursor } : {}),
      });
      return {
        names: page.items.map((n) => ({
          name: n.name,
          source: 'minted' as const,
          parentName: n.parentName,
          network,
          expiry: n.expiry,
        })),
        next: page.nextCursor ?? undefined,
      };
    } catch (err) {
      this.options.logger.warn({ err, owner, network }, 'mint-svc names failed');
      return { failed: true, retry: cursor };
    }
  }

  /** A page of offchain-svc's subnames whose owner is `owner`. */
  async offchainPage(owner: string, page: number | undefined): Promise<SourcePage<number>> {
    if (page === undefined || !this.offchainClient) return { names: [], next: undefined };
    const size = this.options.pageSize;
    try {
      const answer = await this.offchainClient.searchSubnames({ owner, page, size });
      return {
        names: answer.items.map((s) => ({
          name: s.fullName,
          source: 'offchain' as const,
          parentName: s.parentName,
        })),
        next: page * size < answer.totalItems ? page + 1 : undefined,
      };
    } catch (err) {
      this.options.logger.warn({ err, owner }, 'offchain-svc names failed');
      return { failed: true, retry: page };
    }
  }
}
