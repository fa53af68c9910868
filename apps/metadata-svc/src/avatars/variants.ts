import { ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import { contentEtag } from '../images/http';
import type { ImageFormat } from '../images/validation';
import { isImageTimeout } from '../images/work';
import { problems } from '../problems';
import type { ServedImage } from './caches';
import { applyTransform, transformKey, type Transform } from './transform';

/** Blob keys of fetched avatar sources (by the sha256 of their validated bytes) and of their transforms. */
export const AVATAR_SOURCE_PREFIX = 'avatar-src/';
export const AVATAR_TRANSFORM_PREFIX = 'avatar-tx/';
/** Transform results kept in blob storage per source image; further variants are served from memory only. */
export const STORED_VARIANTS_PER_IMAGE = 16;

/** A stored source image: its blob key, the sha256 of its validated bytes and its format. */
export interface VariantSource {
  key: string;
  hash: string;
  format: ImageFormat;
}

export type VariantDeps = Pick<MetadataContext, 'blobs' | 'imageWork' | 'imageBudget' | 'variantAnswers'>;

/** A source outliving the time budget, or that sharp cannot transform, is 404 AVATAR_UNAVAILABLE, never 5xx. */
function transformSource(deps: VariantDeps, bytes: Buffer, format: ImageFormat, transform: Transform) {
  return deps.imageWork.run(async () => {
    try {
      return await applyTransform(bytes, format, transform, deps.imageBudget);
    } catch (err) {
      const tooSlow = isImageTimeout(err);
      throw new ProblemError(
        problems.AVATAR_UNAVAILABLE,
        tooSlow
          ? `Transforming the image takes longer than ${deps.imageBudget.timeoutSeconds} s, the time allowed for one image.`
          : 'The image cannot be transformed.',
        { extensions: { reason: tooSlow ? 'too-large' : 'not-an-image' }, cause: err },
      );
    }
  });
}

/**
 * The variant `transform` of `source` (the source itself or a transform of it), from process memory, else blob
 * storage, else transformed now under the image work limit and budget and stored — at most STORED_VARIANTS_PER_IMAGE
 * per source, so query strings cannot grow blob storage (the fixed set of sizes and formats bounds the rest, kept in
 * memory only). Null when the source is no longer in blob storage.
 */
export async function variant(
  deps: VariantDeps,
  source: VariantSource,
  transform: Transform,
): Promise<ServedImage | null> {
  const key =
    transform.format === 'original'
      ? source.key
      : `${AVATAR_TRANSFORM_PREFIX}${source.hash}/${transformKey(transform)}`;
  const hit = deps.variantAnswers.get(key);
  if (hit) return { ...hit, negotiated: transform.negotiated };
  let stored = await deps.blobs.get(key);
  if (!stored && transform.format !== 'original') {
    const original = await deps.blobs.get(source.key);
    if (original) {
      stored = await transformSource(deps, original.bytes, source.format, transform);
      const variants = await deps.blobs.list(`${AVATAR_TRANSFORM_PREFIX}${source.hash}/`);
      if (variants.length < STORED_VARIANTS_PER_IMAGE)
        await deps.blobs.put(key, stored.bytes, stored.contentType);
    }
  }
  if (!stored) return null;
  const served = {
    bytes: stored.bytes,
    contentType: stored.contentType,
    etag: contentEtag(stored.bytes),
    negotiated: transform.negotiated,
  };
  deps.variantAnswers.set(key, served);
  return served;
}
