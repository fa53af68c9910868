import sharp from 'sharp';
import { TRANSFORM_FITS, type OutputFormat, type TransformQuery } from '@nrp/api';
import type { ImageBudget } from '../images/work';
import { renderSvg } from '../images/svg-render';
import type { ImageFormat } from '../images/validation';

/** What to produce from a source image: `format: 'original'` with no size is the source bytes unchanged. */
export interface Transform {
  width?: number;
  height?: number;
  fit: (typeof TRANSFORM_FITS)[number];
  /** `gif` only when negotiated for a GIF source whose client takes neither webp nor avif (stays animated). */
  format: OutputFormat | 'gif' | 'original';
  /** Whether the answer depends on `Accept` (no explicit format). */
  negotiated: boolean;
}

const CONTENT_TYPES: Record<OutputFormat | 'gif', string> = {
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  png: 'image/png',
  jpeg: 'image/jpeg',
};

/**
 * The transform a request asks for. Without `format`, the output is webp when `Accept` lists image/webp, else
 * avif when it lists image/avif, else the source's own format — and an SVG asked for no size stays SVG (it scales
 * by itself), so it is rasterised (png) only when resized.
 */
export function chooseTransform(
  query: TransformQuery,
  source: ImageFormat,
  accept: string | undefined,
): Transform {
  const sized = query.width !== undefined || query.height !== undefined;
  const base = {
    ...(query.width !== undefined ? { width: query.width } : {}),
    ...(query.height !== undefined ? { height: query.height } : {}),
    // With one dimension the other follows the aspect ratio whatever the fit: one variant, not five.
    fit: query.width !== undefined && query.height !== undefined ? (query.fit ?? 'cover') : 'cover',
  };
  if (query.format) return { ...base, format: query.format, negotiated: false };
  if (source === 'svg' && !sized) return { ...base, format: 'original', negotiated: false };
  const wanted = (accept ?? '').toLowerCase();
  if (wanted.includes('image/webp')) return { ...base, format: 'webp', negotiated: true };
  if (wanted.includes('image/avif')) return { ...base, format: 'avif', negotiated: true };
  if (source === 'svg') return { ...base, format: 'png', negotiated: true };
  if (!sized) return { ...base, format: 'original', negotiated: true };
  return { ...base, format: source, negotiated: true };
}

/** A stable name of a transform, part of the blob key of its result (`w64-hauto-cover.webp`). */
export function transformKey(t: Transform): string {
  return `w${t.width ?? 'auto'}-h${t.height ?? 'auto'}-${t.fit}.${t.format}`;
}

/**
 * Applies `t` to source bytes (already validated: a raster within the budget's pixels, or a sanitised SVG) within
 * the budget's time (a timeout error otherwise; an SVG is rendered by `renderSvg`, cut off at that time). Animated GIF and WebP stay animated when the output is webp
 * or gif (png, jpeg and avif take the first frame). Never enlarges.
 */
export async function applyTransform(
  bytes: Buffer,
  source: ImageFormat,
  t: Transform,
  budget: ImageBudget,
): Promise<{ bytes: Buffer; contentType: string }> {
  if (t.format === 'original') throw new Error('applyTransform called for the original bytes');
  const size = {
    ...(t.width !== undefined ? { width: t.width } : {}),
    ...(t.height !== undefined ? { height: t.height } : {}),
    fit: t.fit,
  };
  if (source === 'svg') {
    // Rendered and resized in its own process (cut off at the budget's time); only the encoding is left here.
    const png = await renderSvg(bytes, size, budget);
    if (t.format === 'png') return { bytes: png, contentType: CONTENT_TYPES.png };
    return encode(sharp(png, { failOn: 'error' }).timeout({ seconds: budget.timeoutSeconds }), t.format);
  }
  const animated = (source === 'gif' || source === 'webp') && (t.format === 'webp' || t.format === 'gif');
  let pipeline = sharp(bytes, { limitInputPixels: budget.maxPixels, animated, failOn: 'error' }).timeout({
    seconds: budget.timeoutSeconds,
  });
  if (t.width !== undefined || t.height !== undefined) {
    pipeline = pipeline.resize({ ...size, withoutEnlargement: true });
  }
  return encode(pipeline, t.format);
}

async function encode(
  pipeline: sharp.Sharp,
  format: OutputFormat | 'gif',
): Promise<{ bytes: Buffer; contentType: string }> {
  const out =
    format === 'webp'
      ? pipeline.webp({ quality: 82 })
      : format === 'avif'
        ? pipeline.avif({ quality: 55, effort: 2 })
        : format === 'png'
          ? pipeline.png()
          : format === 'gif'
            ? pipeline.gif()
            : pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 85, mozjpeg: true });
  return { bytes: await out.toBuffer(), contentType: CONTENT_TYPES[format] };
}
