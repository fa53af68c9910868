import { LRUCache } from 'lru-cache';
import type { NetworkName } from '@nrp/chain';
import type { TokenName } from './token-metadata';

export interface RenderedImage {
  etag: string;
  png: Buffer;
  /** `network:node` of the name. */
  key: string;
}

/** The cache key of a name: `network:node`. */
export const nameKeyOf = (network: NetworkName, node: string) => `${network}:${node.toLowerCase()}`;

/**
 * What the token routes remember, in process memory only (each replica has its own; entries expire after
 * METADATA_CACHE_TTL_MS, and a TTL of 0 turns every cache off but the content-addressed PNGs): the name of a token,
 * the image of a name, the image answered for a request URL, and rendered PNGs by content. Built before the
 * context, so that the image writes drop what it holds about a name with `invalidate`.
 */
export class TokenCache {
  private readonly enabled: boolean;
  private readonly names: LRUCache<string, TokenName>;
  private readonly images: LRUCache<string, RenderedImage>;
  /** image.png by request URL (`chainId/tokenId` as sent). */
  private readonly byRequest: LRUCache<string, RenderedImage>;
  /** Content-addressed: same name + same avatar bytes + same template = same PNG, whatever the token. */
  private readonly rendered = new LRUCache<string, Buffer>({
    max: 500,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (b) => b.length,
  });

  constructor(ttlMs: number) {
    this.enabled = ttlMs > 0;
    const ttl = Math.max(ttlMs, 1);
    this.names = new LRUCache({ max: 10_000, ttl });
    this.images = new LRUCache({ max: 1_000, ttl });
    this.byRequest = new LRUCache({ max: 5_000, ttl });
  }

  /** The name of the token `key`, looked up once per TTL. */
  async name(key: string, lookup: () => Promise<TokenName>): Promise<TokenName> {
    const cached = this.enabled ? this.names.get(key) : undefined;
    if (cached) return cached;
    const found = await lookup();
    if (this.enabled) this.names.set(key, found);
    return found;
  }

  /** The image answered for the request URL `requestKey` within the TTL. */
  imageOfRequest(requestKey: string): RenderedImage | undefined {
    return this.enabled ? this.byRequest.get(requestKey) : undefined;
  }

  rememberImageOfRequest(requestKey: string, image: RenderedImage): void {
    if (this.enabled) this.byRequest.set(requestKey, image);
  }

  /** The image of the name `key` (`nameKeyOf`) within the TTL. */
  imageOfName(key: string): RenderedImage | undefined {
    return this.enabled ? this.images.get(key) : undefined;
  }

  rememberImageOfName(image: RenderedImage): void {
    if (this.enabled) this.images.set(image.key, image);
  }

  /** The PNG of content hash `etag`, rendered once. */
  async png(etag: string, render: () => Promise<Buffer>): Promise<Buffer> {
    let png = this.rendered.get(etag);
    if (!png) {
      png = await render();
      this.rendered.set(etag, png);
    }
    return png;
  }

  /** Drops what is cached about one name's images (they changed). */
  invalidate(network: NetworkName, node: string): void {
    const key = nameKeyOf(network, node);
    this.images.delete(key);
    for (const [requestKey, image] of this.byRequest.entries()) {
      if (image.key === key) this.byRequest.delete(requestKey);
    }
  }
}
