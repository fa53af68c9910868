import { createHash } from 'node:crypto';
import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';
import {
  decodeAddrResult,
  decodeTextResult,
  encodeAddrCall,
  encodeTextCall,
  universalResolve,
  type NetworkName,
} from '@nrp/chain';
import { namehash } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import {
  AvatarUnavailableError,
  decodeDataUri,
  parseNftReference,
  uriTarget,
  type ContentGateways,
  type NftReference,
  type UriTarget,
} from './uri';
import type { MetadataContext } from '../context';
import type { ImageKind } from '../data/database';
import { fetchBounded, type FetchLimits } from './fetch';
import { nftMetadataImage } from './nft';
import type { TransformQuery } from '@nrp/api';
import { chooseTransform } from './transform';
import { AVATAR_SOURCE_PREFIX, createVariants, type ServedImage } from './variants';
import { formatOfContentType, validateImage, type ImageFormat } from '../image-validation';
import { findConfirmed } from '../data/images';
import { recordPointsAt, stableImageUrl } from '../images';
import { problems } from '../problems';

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

interface Source {
  /** Blob key of the bytes: the upload's own, or the fetched source stored by its hash. */
  key: string;
  hash: string;
  format: ImageFormat;
  contentType: string;
}

export type Resolution =
  | { ok: true; meta: AvatarMeta; source: Source }
  | { ok: false; meta: AvatarMeta; error: AvatarUnavailableError };

const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.9,*/*;q=0.5';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface CachedResolution {
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

/**
 * Avatars and headers of any name: the text record read through the universal resolver, interpreted per ENSIP-12,
 * fetched under the outbound policy, validated like uploads, stored by content hash, and transformed on request.
 * A name's resolution (success or failure) is reused for AVATAR_CACHE_TTL_MS, and dropped at once when an upload
 * of this service changes the name's images.
 */
export function createAvatars(ctx: MetadataContext) {
  const { config } = ctx;
  const gateways: ContentGateways = { ipfs: config.IPFS_GATEWAY_URL, arweave: config.ARWEAVE_GATEWAY_URL };
  const limits: FetchLimits = {
    // The configured gateways are the operator's choice, so they are reachable even on a private network.
    allowedOrigins: [
      ...config.IMAGE_FETCH_ALLOWED_ORIGINS,
      new URL(gateways.ipfs).origin,
      new URL(gateways.arweave).origin,
    ],
    timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
    maxBytes: config.IMAGE_FETCH_MAX_BYTES,
  };
  const ttl = config.AVATAR_CACHE_TTL_MS;
  const resolutions = ctx.avatarResolutions;
  const variants = createVariants(ctx);
  // By name, not namehash: hashing costs more than the rest of a cached answer; invalidation (rare) scans by node.
  const keyOf = (network: NetworkName, name: string, kind: ImageKind) => `${network}:${kind}:${name}`;

  /** A URI's bytes: fetched (within IMAGE_FETCH_MAX_BYTES, and `atMost` when smaller) or decoded inline. */
  async function load(
    target: UriTarget,
    accept: string,
    atMost = limits.maxBytes,
  ): Promise<{ bytes: Buffer; url: string | null }> {
    const maxBytes = Math.min(limits.maxBytes, atMost);
    if (target.kind === 'data') return { bytes: decodeDataUri(target.url, maxBytes).bytes, url: null };
    const fetched = await fetchBounded(target.url, { ...limits, maxBytes }, accept, ctx.logger);
    return { bytes: fetched.bytes, url: fetched.url };
  }

  /** Validates fetched bytes like an upload, under the image work limit (503 when full) and the image budget. */
  async function store(bytes: Buffer): Promise<Source> {
    const image = await ctx.imageWork.run(async () => {
      try {
        return await validateImage(bytes, ctx.imageBudget);
      } catch (err) {
        if (err instanceof ProblemError) {
          throw new AvatarUnavailableError(
            err.code === 'IMAGE_TOO_LARGE' ? 'too-large' : 'not-an-image',
            err.message,
          );
        }
        throw err;
      }
    });
    const hash = sha256(image.bytes);
    const key = `${AVATAR_SOURCE_PREFIX}${hash}`;
    await ctx.blobs.put(key, image.bytes, image.contentType);
    return { key, hash, format: image.format, contentType: image.contentType };
  }

  async function nftImage(ref: NftReference, owner: string | null, meta: AvatarMeta): Promise<Source> {
    const imageUri = await nftMetadataImage({ networks: ctx.networks, gateways, load }, ref, owner, meta);
    const image = await load(uriTarget(imageUri, gateways), IMAGE_ACCEPT);
    meta.imageUrl = image.url;
    return store(image.bytes);
  }

  async function resolveUncached(
    network: NetworkName,
    name: string,
    kind: ImageKind,
  ): Promise<Resolution | null> {
    const access = ctx.networks[network];
    const { results } = await universalResolve(
      access.provider,
      access.config.ens.universalResolver,
      name,
      [encodeTextCall(name, kind), encodeAddrCall(name, 60)],
      access.config.batchGatewayUrls,
    );
    const record = decodeTextResult(results[0] ?? null)?.trim();
    if (!record) return null;
    const addr = decodeAddrResult(results[1] ?? null);
    const owner = addr && addr.length === 42 ? getAddress(addr) : null;
    const meta: AvatarMeta = {
      network,
      name,
      kind,
      record,
      recordKind: null,
      imageUrl: null,
      ownershipVerified: null,
    };
    try {
      let source: Source;
      const nft = parseNftReference(record);
      if (recordPointsAt(record, stableImageUrl(config.PUBLIC_BASE_URL, network, name, kind))) {
        meta.recordKind = 'upload';
        meta.imageUrl = stableImageUrl(config.PUBLIC_BASE_URL, network, name, kind);
        // Served from the upload's own bytes (validated when uploaded): read only, nothing copied.
        const upload = await findConfirmed(ctx.db, { network, node: namehash(name), kind });
        const blob = upload ? await ctx.blobs.get(upload.blob_key) : null;
        const format = upload ? formatOfContentType(upload.content_type) : undefined;
        if (!upload || !blob || !format)
          throw new AvatarUnavailableError('fetch-failed', `${name} has no confirmed ${kind} upload here.`);
        meta.ownershipVerified = true;
        source = { key: upload.blob_key, hash: sha256(blob.bytes), format, contentType: upload.content_type };
      } else if (nft) {
        meta.recordKind = nft.standard;
        meta.nft = {
          chainId: nft.chainId,
          contract: getAddress(nft.contract),
          tokenId: nft.tokenId.toString(),
          owner,
        };
        source = await nftImage(nft, owner, meta);
      } else {
        const target = uriTarget(record, gateways);
        meta.recordKind = target.kind;
        const image = await load(target, IMAGE_ACCEPT);
        meta.imageUrl = image.url;
        source = await store(image.bytes);
      }
      meta.contentType = source.contentType;
      meta.sha256 = source.hash;
      return { ok: true, meta, source };
    } catch (err) {
      if (!(err instanceof AvatarUnavailableError)) throw err;
      return { ok: false, meta: { ...meta, reason: err.reason, detail: err.message }, error: err };
    }
  }

  /**
   * The resolution of a name's avatar or header (null: no record), from the cache while it is fresh; `noCache`
   * reads the record now and refreshes the cache with it.
   */
  function resolve(
    network: NetworkName,
    name: string,
    kind: ImageKind,
    noCache = false,
  ): Promise<Resolution | null> {
    const key = keyOf(network, name, kind);
    const now = ctx.now().getTime();
    const cached = noCache ? undefined : resolutions.get(key);
    if (cached && cached.until > now) return cached.resolution;
    const pending = resolveUncached(network, name, kind);
    if (ttl > 0) {
      resolutions.set(key, { resolution: pending, until: now + ttl, network, node: namehash(name) });
      // A failing dependency (RPC, storage) is not remembered: the next request tries again.
      pending.catch(() => {
        if (resolutions.get(key)?.resolution === pending) resolutions.delete(key);
      });
    }
    return pending;
  }

  /** The resolved image of a name, transformed as asked; 404 IMAGE_NOT_FOUND / AVATAR_UNAVAILABLE otherwise. */
  async function image(
    network: NetworkName,
    name: string,
    kind: ImageKind,
    query: TransformQuery,
    accept: string | undefined,
    retried = false,
  ): Promise<ServedImage> {
    const resolved = await resolve(network, name, kind, query.noCache === true && !retried);
    if (!resolved) {
      throw new ProblemError(problems.IMAGE_NOT_FOUND, `${name} has no ${kind} record on ${network}.`);
    }
    if (!resolved.ok) {
      throw new ProblemError(problems.AVATAR_UNAVAILABLE, resolved.error.message, {
        extensions: { reason: resolved.error.reason, record: resolved.meta.record },
      });
    }
    const { source } = resolved;
    const served = await variants.variant(source, chooseTransform(query, source.format, accept));
    if (served) return served;
    // The source left storage since it was resolved (a cleared bucket): resolve and store it again, once.
    resolutions.delete(keyOf(network, name, kind));
    if (retried)
      throw new Error(`the source of ${name} is missing from blob storage right after it was stored`);
    return image(network, name, kind, query, accept, true);
  }

  return {
    resolve,
    image,
    /** The source bytes of a name's resolved avatar, or undefined (no record, unavailable). */
    async sourceOf(network: NetworkName, name: string, kind: ImageKind) {
      const resolved = await resolve(network, name, kind);
      if (!resolved?.ok) return undefined;
      const blob = await ctx.blobs.get(resolved.source.key);
      return blob
        ? { hash: resolved.source.hash, bytes: blob.bytes, format: resolved.source.format }
        : undefined;
    },
  };
}

export type Avatars = ReturnType<typeof createAvatars>;
