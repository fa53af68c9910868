import { createHash } from 'node:crypto';
import { getAddress } from 'ethers';
import { LRUCache } from 'lru-cache';
import {
  NoValue,
  callView,
  decodeAddrResult,
  decodeTextResult,
  encodeAddrCall,
  encodeTextCall,
  erc1155Interface,
  erc721Interface,
  normaliseOrigin,
  parseOutboundJson,
  universalResolve,
  type NetworkName,
} from '@nrp/chain';
import { namehash } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import {
  AvatarUnavailableError,
  decodeDataUri,
  metadataImageUri,
  parseNftReference,
  substituteErc1155Id,
  uriTarget,
  type ContentGateways,
  type NftReference,
  type UriTarget,
} from './avatar-uri';
import type { MetadataContext } from './context';
import type { ImageKind } from './data/database';
import type { NetworkAccess } from './ens-state';
import { fetchBounded, type FetchLimits } from './image-fetch';
import type { TransformQuery } from '@nrp/api';
import { isImageTimeout } from './avatars/image-work';
import { applyTransform, chooseTransform, transformKey, type Transform } from './image-transform';
import { validateImage, type ImageFormat } from './image-validation';
import { recordPointsAt, stableImageUrl, visibleImage } from './images';
import { problems } from './problems';

/** Blob keys of fetched avatar sources (by the sha256 of their validated bytes) and of their transforms. */
export const AVATAR_SOURCE_PREFIX = 'avatar-src/';
export const AVATAR_TRANSFORM_PREFIX = 'avatar-tx/';
/** Transform results kept in blob storage per source image; further variants are served from memory only. */
export const STORED_VARIANTS_PER_IMAGE = 16;
/** An NFT metadata document (tokenURI / uri) is refused past this size or nesting depth, before it is parsed. */
export const NFT_METADATA_MAX_BYTES = 1024 * 1024;
export const NFT_METADATA_MAX_DEPTH = 16;

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
  hash: string;
  format: ImageFormat;
  contentType: string;
}

export type Resolution =
  | { ok: true; meta: AvatarMeta; source: Source }
  | { ok: false; meta: AvatarMeta; error: AvatarUnavailableError };

export interface ServedImage {
  bytes: Buffer;
  contentType: string;
  /** Strong ETag (quoted) of these exact bytes. */
  etag: string;
  /** The answer depends on `Accept`. */
  negotiated: boolean;
}

const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.9,*/*;q=0.5';
const JSON_ACCEPT = 'application/json,*/*;q=0.5';

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
    allowedOrigins: [...config.IMAGE_FETCH_ALLOWED_ORIGINS, gateways.ipfs, gateways.arweave].map(
      normaliseOrigin,
    ),
    timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
    maxBytes: config.IMAGE_FETCH_MAX_BYTES,
  };
  const ttl = config.AVATAR_CACHE_TTL_MS;
  const resolutions = ctx.avatarResolutions;
  const answers = new LRUCache<string, ServedImage>({
    max: 2_000,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (image) => image.bytes.length,
  });
  // By name, not namehash: hashing costs more than the rest of a cached answer; invalidation (rare) scans by node.
  const keyOf = (network: NetworkName, name: string, kind: ImageKind) => `${network}:${kind}:${name}`;

  async function load(
    target: UriTarget,
    accept: string,
    maxBytes = limits.maxBytes,
  ): Promise<{ bytes: Buffer; url: string | null }> {
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
    await ctx.blobs.put(`${AVATAR_SOURCE_PREFIX}${hash}`, image.bytes, image.contentType);
    return { hash, format: image.format, contentType: image.contentType };
  }

  /** `fn` of an NFT contract; undefined when it answers no value (no such token, not an NFT contract). */
  async function contractCall(access: NetworkAccess, ref: NftReference, fn: string, args: unknown[]) {
    const answer = await callView<[unknown]>(access.provider, {
      to: ref.contract,
      abi: ref.standard === 'erc721' ? erc721Interface : erc1155Interface,
      fn,
      args,
      context: `NFT ${fn}`,
    });
    return answer instanceof NoValue ? undefined : answer[0];
  }

  async function nftImage(ref: NftReference, owner: string | null, meta: AvatarMeta): Promise<Source> {
    const access = Object.values(ctx.networks).find((n) => n.config.chainId === ref.chainId);
    if (!access) {
      throw new AvatarUnavailableError(
        'unsupported-chain',
        `NFTs on chain ${ref.chainId} are not served here.`,
      );
    }
    meta.ownershipVerified = false;
    if (!owner)
      throw new AvatarUnavailableError('not-owned', `${meta.name} has no ETH address to own the NFT.`);
    if (ref.standard === 'erc721') {
      const tokenOwner = await contractCall(access, ref, 'ownerOf', [ref.tokenId]);
      if (typeof tokenOwner !== 'string' || getAddress(tokenOwner) !== owner) {
        throw new AvatarUnavailableError(
          'not-owned',
          `Token ${ref.tokenId} of ${ref.contract} is not owned by ${owner}.`,
        );
      }
    } else {
      const balance = await contractCall(access, ref, 'balanceOf', [owner, ref.tokenId]);
      if (typeof balance !== 'bigint' || balance === 0n) {
        throw new AvatarUnavailableError(
          'not-owned',
          `${owner} holds no token ${ref.tokenId} of ${ref.contract}.`,
        );
      }
    }
    meta.ownershipVerified = true;
    const uriFn = ref.standard === 'erc721' ? 'tokenURI' : 'uri';
    const tokenUri = await contractCall(access, ref, uriFn, [ref.tokenId]);
    if (typeof tokenUri !== 'string' || tokenUri === '') {
      throw new AvatarUnavailableError(
        'fetch-failed',
        `${uriFn}(${ref.tokenId}) of ${ref.contract} gives no URI.`,
      );
    }
    const metadataUri = ref.standard === 'erc1155' ? substituteErc1155Id(tokenUri, ref.tokenId) : tokenUri;
    const maxBytes = Math.min(limits.maxBytes, NFT_METADATA_MAX_BYTES);
    const document = await load(uriTarget(metadataUri, gateways), JSON_ACCEPT, maxBytes);
    let metadata: unknown;
    try {
      metadata = parseOutboundJson(document.bytes, NFT_METADATA_MAX_DEPTH);
    } catch {
      throw new AvatarUnavailableError(
        'fetch-failed',
        `The token metadata at ${metadataUri.slice(0, 200)} is not JSON of at most ${NFT_METADATA_MAX_DEPTH} levels.`,
      );
    }
    const image = await load(uriTarget(metadataImageUri(metadata), gateways), IMAGE_ACCEPT);
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
        const upload = await visibleImage(ctx, { network, node: namehash(name), kind });
        const blob = upload ? await ctx.blobs.get(upload.blob_key) : null;
        if (!blob)
          throw new AvatarUnavailableError('fetch-failed', `${name} has no confirmed ${kind} upload here.`);
        meta.ownershipVerified = true;
        source = await store(blob.bytes);
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

  /**
   * `transform` of a source under the image work limit and budget; a source that outlives the time budget or that
   * sharp cannot transform is 404 AVATAR_UNAVAILABLE (`too-large`, `not-an-image`), never a 5xx.
   */
  async function transformSource(bytes: Buffer, format: ImageFormat, transform: Transform) {
    return ctx.imageWork.run(async () => {
      try {
        return await applyTransform(bytes, format, transform, ctx.imageBudget);
      } catch (err) {
        const tooSlow = isImageTimeout(err);
        throw new ProblemError(
          problems.AVATAR_UNAVAILABLE,
          tooSlow
            ? `Transforming the image takes longer than ${ctx.imageBudget.timeoutSeconds} s, the time allowed for one image.`
            : 'The image cannot be transformed.',
          { extensions: { reason: tooSlow ? 'too-large' : 'not-an-image' }, cause: err },
        );
      }
    });
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
    const transform = chooseTransform(query, source.format, accept);
    const sourceKey = `${AVATAR_SOURCE_PREFIX}${source.hash}`;
    const key =
      transform.format === 'original'
        ? sourceKey
        : `${AVATAR_TRANSFORM_PREFIX}${source.hash}/${transformKey(transform)}`;
    const hit = answers.get(key);
    if (hit) return { ...hit, negotiated: transform.negotiated };
    let stored = await ctx.blobs.get(key);
    if (!stored && transform.format !== 'original') {
      const original = await ctx.blobs.get(sourceKey);
      if (original) {
        stored = await transformSource(original.bytes, source.format, transform);
        const variants = await ctx.blobs.list(`${AVATAR_TRANSFORM_PREFIX}${source.hash}/`);
        if (variants.length < STORED_VARIANTS_PER_IMAGE)
          await ctx.blobs.put(key, stored.bytes, stored.contentType);
      }
    }
    if (!stored) {
      // The source left storage since it was resolved (a cleared bucket): resolve and store it again, once.
      resolutions.delete(keyOf(network, name, kind));
      if (retried) throw new Error(`${sourceKey} is missing from blob storage right after it was stored`);
      return image(network, name, kind, query, accept, true);
    }
    const served = {
      bytes: stored.bytes,
      contentType: stored.contentType,
      etag: `"${createHash('sha256').update(stored.bytes).digest('base64url').slice(0, 27)}"`,
      negotiated: transform.negotiated,
    };
    answers.set(key, served);
    return served;
  }

  return {
    resolve,
    image,
    /** The source bytes of a name's resolved avatar, or undefined (no record, unavailable). */
    async sourceOf(network: NetworkName, name: string, kind: ImageKind) {
      const resolved = await resolve(network, name, kind);
      if (!resolved?.ok) return undefined;
      const blob = await ctx.blobs.get(`${AVATAR_SOURCE_PREFIX}${resolved.source.hash}`);
      return blob ? { hash: resolved.source.hash, bytes: blob.bytes } : undefined;
    },
  };
}

export type Avatars = ReturnType<typeof createAvatars>;
