import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import type { ImageFormat } from '../image-validation';
import { problems } from '../problems';
import { isImageTimeout } from './image-work';
import { applyTransform, transformKey, type Transform } from './transform';

/** Blob keys of fetched avatar sources (by the sha256 of their validated bytes) and of their transforms. */
export const AVATAR_SOURCE_PREFIX = 'avatar-src/';
export const AVATAR_TRANSFORM_PREFIX = 'avatar-tx/';
/** Transform results kept in blob storage per source image; further variants are served from memory only. */
export const STORED_VARIANTS_PER_IMAGE = 16;

export interface ServedImage {
  bytes: Buffer;
  contentType: string;
  /** Strong ETag (quoted) of these exact bytes. */
  etag: string;
  /** The answer depends on `Accept`. */
  negotiated: boolean;
}

/** A stored source image: its blob key, the sha256 of its validated bytes and its format. */
export interface VariantSource {
  key: string;
  hash: string;
  format: ImageFormat;
}

/**
 * The served variants of source images: the source itself or a transform of it, from process memory (64 MB), else
 * blob storage, else transformed now under the image work limit and budget and stored — at most
 * STORED_VARIANTS_PER_IMAGE per source, so query strings cannot grow blob storage (the fixed set of sizes and
 * formats bounds the rest, kept in memory only).
 */
export function createVariants(ctx: MetadataContext) {
  const answers = new LRUCache<string, ServedImage>({
    max: 2_000,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (image) => image.bytes.length,
  });

  /** A source outliving the time budget, or that sharp cannot transform, is 404 AVATAR_UNAVAILABLE, never 5xx. */
  function transformSource(bytes: Buffer, format: ImageFormat, transform: Transform) {
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

  /** The variant `transform` of `source`, or null when the source is no longer in blob storage. */
  async function variant(source: VariantSource, transform: Transform): Promise<ServedImage | null> {
    const sourceKey = source.key;
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
    if (!stored) return null;
    const served = {
      bytes: stored.bytes,
      contentType: stored.contentType,
      etag: `"${createHash('sha256').update(stored.bytes).digest('base64url').slice(0, 27)}"`,
      negotiated: transform.negotiated,
    };
    answers.set(key, served);
    return served;
  }

  return { variant };
}
