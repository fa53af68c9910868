import { LRUCache } from 'lru-cache';
import type { NetworkName } from '@nrp/chain';
import type { ImageKind } from '../data/schema';
import type { ImageFormat } from '../images/validation';
import type { AvatarUnavailableError, NftReference, UriTarget } from './uri';

export type RecordKind = 'upload' | UriTarget['kind'] | NftReference['standard'];

/** What `GET /{network}/avatar/{name}/meta` answers. */
export interface AvatarMeta {
  network: NetworkName;
  name: string;
  kind: ImageKind;
  /** The text record as set. */
  record: string;
  recordKind: RecordKind | null;
  /** The URL the image was fetched from (gateway URL for ipfs/ipns/ar), null for inline data and failures. */
  imageUrl: string | null;
  /** NFT records: whether the name's ETH address owns the token; uploads: true; URLs: null (nothing to verify). */
  ownershipVerified: boolean | null;
  nft?: { chainId: number; contract: string; tokenId: string; owner: string | null };
  contentType?: string;
  /** sha256 (hex) of the validated source bytes. */
  sha256?: string;
  reason?: AvatarUnavailableError['reason'];
  detail?: string;
}

export interface AvatarSource {
  /** Blob key of the bytes: the upload's own, or the fetched source stored by its hash. */
  key: string;
  hash: string;
  format: ImageFormat;
  contentType: string;
}

export type Resolution =
  | { ok: true; meta: AvatarMeta; source: AvatarSource }
  | { ok: false; meta: AvatarMeta; error: AvatarUnavailableError };

export interface ServedImage {
  bytes: Buffer;
  contentType: string;
  /** Strong ETag (quoted) of these exact bytes. */
  etag: string;
  /** The answer depends on `Accept`. */
  negotiated: boolean;
}

export interface CachedResolution {
  resolution: Promise<Resolution | null>;
  /** Service clock (Unix ms) until which it is reused. */
  until: number;
  network: NetworkName;
  node: string;
}

/**
 * Names' avatar and header resolutions in this process, kept as promises so concurrent requests for one name share
 * one resolution, and aged by the service clock. Built before the context, so that the image writes drop a name's
 * entries with `invalidate`.
 */
export class AvatarResolutions extends LRUCache<string, CachedResolution> {
  constructor() {
    super({ max: 10_000 });
  }

  /** Drops a name's cached resolutions (its uploads changed). */
  invalidate(network: NetworkName, node: string): void {
    const target = node.toLowerCase();
    for (const [key, entry] of this.entries()) {
      if (entry.network === network && entry.node === target) this.delete(key);
    }
  }
}

/** Served variants by blob key, in process memory (64 MB): one per service, in its context. */
export class VariantAnswers extends LRUCache<string, ServedImage> {
  constructor() {
    super({ max: 2_000, maxSize: 64 * 1024 * 1024, sizeCalculation: (image) => image.bytes.length });
  }
}
