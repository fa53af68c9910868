import { createHash } from 'node:crypto';
import { getAddress } from 'ethers';
import type { TransformQuery } from '@nrp/api';
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
import type { Config } from '../config';
import type { MetadataContext } from '../context';
import { findConfirmed } from '../data/images';
import type { ImageKind } from '../data/schema';
import { formatOfContentType, validateImage } from '../images/validation';
import type { NetworkAccess } from '../names/ens-state';
import { problems } from '../problems';
import { recordPointsAt, stableImageUrl } from '../uploads/stable-url';
import type { AvatarMeta, AvatarSource, Resolution, ServedImage } from './caches';
import { fetchBounded, type FetchLimits } from './fetch';
import { nftMetadataImage, nftNetwork, verifyNftOwner } from './nft';
import { chooseTransform } from './transform';
import {
  AvatarUnavailableError,
  decodeDataUri,
  parseNftReference,
  uriTarget,
  type ContentGateways,
  type NftReference,
  type UriTarget,
} from './uri';
import { AVATAR_SOURCE_PREFIX, variant } from './variants';

/*
 * Avatars and headers of any name: the text record read through the universal resolver, interpreted per ENSIP-12,
 * fetched under the outbound policy, validated like uploads, stored by content hash, and transformed on request.
 * A name's resolution (success or failure) is reused for AVATAR_CACHE_TTL_MS, and dropped at once when an upload
 * of this service changes the name's images.
 */

export type AvatarDeps = Pick<
  MetadataContext,
  | 'config'
  | 'logger'
  | 'db'
  | 'blobs'
  | 'networks'
  | 'now'
  | 'avatarResolutions'
  | 'variantAnswers'
  | 'imageWork'
  | 'imageBudget'
  | 'svgPurifier'
>;

/** One image of one name: its avatar or header on a network. */
export interface NameImage {
  network: NetworkName;
  name: string;
  kind: ImageKind;
}

const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.9,*/*;q=0.5';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const gatewaysOf = (config: Config): ContentGateways => ({
  ipfs: config.IPFS_GATEWAY_URL,
  arweave: config.ARWEAVE_GATEWAY_URL,
});

function fetchLimitsOf(config: Config): FetchLimits {
  const gateways = gatewaysOf(config);
  return {
    // The configured gateways are the operator's choice, so they are reachable even on a private network.
    allowedOrigins: [
      ...config.IMAGE_FETCH_ALLOWED_ORIGINS,
      new URL(gateways.ipfs).origin,
      new URL(gateways.arweave).origin,
    ],
    timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
    maxBytes: config.IMAGE_FETCH_MAX_BYTES,
  };
}

/** A URI's bytes: fetched (within IMAGE_FETCH_MAX_BYTES, and `atMost` when smaller) or decoded inline. */
async function load(
  deps: AvatarDeps,
  target: UriTarget,
  accept: string,
  atMost = deps.config.IMAGE_FETCH_MAX_BYTES,
): Promise<{ bytes: Buffer; url: string | null }> {
  const limits = fetchLimitsOf(deps.config);
  const maxBytes = Math.min(limits.maxBytes, atMost);
  if (target.kind === 'data') return { bytes: decodeDataUri(target.url, maxBytes).bytes, url: null };
  const fetched = await fetchBounded(target.url, { ...limits, maxBytes }, accept, deps.logger);
  return { bytes: fetched.bytes, url: fetched.url };
}

/** Validates fetched bytes like an upload, under the image work limit (503 when full) and the image budget. */
async function storeFetched(deps: AvatarDeps, bytes: Buffer): Promise<AvatarSource> {
  const image = await deps.imageWork.run(async () => {
    try {
      return await validateImage(deps, bytes);
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
  await deps.blobs.put(key, image.bytes, image.contentType);
  return { key, hash, format: image.format, contentType: image.contentType };
}

/** The confirmed upload of this service, served from its own bytes (validated when uploaded): nothing copied. */
async function uploadSource(deps: AvatarDeps, { network, name, kind }: NameImage): Promise<AvatarSource> {
  const upload = await findConfirmed(deps.db, { network, node: namehash(name), kind });
  const blob = upload ? await deps.blobs.get(upload.blob_key) : null;
  const format = upload ? formatOfContentType(upload.content_type) : undefined;
  if (!upload || !blob || !format) {
    throw new AvatarUnavailableError('fetch-failed', `${name} has no confirmed ${kind} upload here.`);
  }
  return { key: upload.blob_key, hash: sha256(blob.bytes), format, contentType: upload.content_type };
}

/** The image of a verified NFT: its metadata's image, fetched and stored like any record's. */
async function nftImage(
  deps: AvatarDeps,
  access: NetworkAccess,
  ref: NftReference,
): Promise<{ source: AvatarSource; imageUrl: string | null }> {
  const gateways = gatewaysOf(deps.config);
  const reads = {
    gateways,
    load: (target: UriTarget, accept: string, atMost?: number) => load(deps, target, accept, atMost),
  };
  const imageUri = await nftMetadataImage(reads, access, ref);
  const image = await load(deps, uriTarget(imageUri, gateways), IMAGE_ACCEPT);
  return { source: await storeFetched(deps, image.bytes), imageUrl: image.url };
}

async function resolveUncached(deps: AvatarDeps, target: NameImage): Promise<Resolution | null> {
  const { network, name, kind } = target;
  const access = deps.networks[network];
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
    let source: AvatarSource;
    const nft = parseNftReference(record);
    const stableUrl = stableImageUrl(deps.config.PUBLIC_BASE_URL, network, name, kind);
    if (recordPointsAt(record, stableUrl)) {
      meta.recordKind = 'upload';
      meta.imageUrl = stableUrl;
      source = await uploadSource(deps, target);
      meta.ownershipVerified = true;
    } else if (nft) {
      meta.recordKind = nft.standard;
      meta.nft = {
        chainId: nft.chainId,
        contract: getAddress(nft.contract),
        tokenId: nft.tokenId.toString(),
        owner,
      };
      const access = nftNetwork(deps.networks, nft);
      meta.ownershipVerified = false;
      await verifyNftOwner(access, nft, owner, name);
      meta.ownershipVerified = true;
      const fetched = await nftImage(deps, access, nft);
      meta.imageUrl = fetched.imageUrl;
      source = fetched.source;
    } else {
      const uri = uriTarget(record, gatewaysOf(deps.config));
      meta.recordKind = uri.kind;
      const image = await load(deps, uri, IMAGE_ACCEPT);
      meta.imageUrl = image.url;
      source = await storeFetched(deps, image.bytes);
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
export function resolveAvatar(
  deps: AvatarDeps,
  target: NameImage,
  noCache = false,
): Promise<Resolution | null> {
  const { network, name, kind } = target;
  const resolutions = deps.avatarResolutions;
  // By name, not namehash: hashing costs more than the rest of a cached answer; invalidation (rare) scans by node.
  const key = `${network}:${kind}:${name}`;
  const now = deps.now().getTime();
  const cached = noCache ? undefined : resolutions.get(key);
  if (cached && cached.until > now) return cached.resolution;
  const pending = resolveUncached(deps, target);
  const ttl = deps.config.AVATAR_CACHE_TTL_MS;
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
export async function avatarImage(
  deps: AvatarDeps,
  target: NameImage,
  query: TransformQuery,
  accept: string | undefined,
): Promise<ServedImage> {
  let noCache = query.noCache === true;
  for (let attempt = 0; attempt < 2; attempt++) {
    const resolved = await resolveAvatar(deps, target, noCache);
    if (!resolved) {
      throw new ProblemError(
        problems.IMAGE_NOT_FOUND,
        `${target.name} has no ${target.kind} record on ${target.network}.`,
      );
    }
    if (!resolved.ok) {
      throw new ProblemError(problems.AVATAR_UNAVAILABLE, resolved.error.message, {
        extensions: { reason: resolved.error.reason, record: resolved.meta.record },
      });
    }
    const { source } = resolved;
    const served = await variant(deps, source, chooseTransform(query, source.format, accept));
    if (served) return served;
    // The source left storage since it was resolved (a cleared bucket, a replaced upload): resolve it again, once.
    noCache = true;
  }
  throw new Error(`the source of ${target.name} is missing from blob storage right after it was stored`);
}

/** The source bytes of a name's resolved avatar, or undefined (no record, unavailable). */
export async function avatarSource(deps: AvatarDeps, target: NameImage) {
  const resolved = await resolveAvatar(deps, target);
  if (!resolved?.ok) return undefined;
  const blob = await deps.blobs.get(resolved.source.key);
  return blob ? { hash: resolved.source.hash, bytes: blob.bytes, format: resolved.source.format } : undefined;
}
