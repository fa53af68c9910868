import sharp from 'sharp';
import { MAX_ANSWER_BYTES } from '@nrp/server';
import { ProblemError } from '@nrp/validation';
import { problems } from '../problems';
import { renderSvg } from './svg-render';
import { sniffType } from './sniff';
import type { SvgPurifier } from './svg-purifier';
import { isImageTimeout, type ImageBudget } from './work';

// libvips' operation cache holds decoded images between calls; uploads are one-off, so it only costs memory.
sharp.cache(false);
// One libvips thread per operation: uploads run in parallel already (libuv pool), and every extra vips thread
// keeps its own malloc arena, which is what makes RSS grow under load.
sharp.concurrency(1);

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'svg';

export interface ValidatedImage {
  /** The bytes to store: rasters re-encoded without metadata, the sanitised document for SVG. */
  bytes: Buffer;
  contentType: string;
  format: ImageFormat;
  width: number;
  height: number;
}

const CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The format of a content type this service stored, or undefined for any other. */
export function formatOfContentType(contentType: string): ImageFormat | undefined {
  return (Object.keys(CONTENT_TYPES) as ImageFormat[]).find(
    (format) => CONTENT_TYPES[format] === contentType,
  );
}

const EXPENSIVE_FILTER_PRIMITIVES = [
  'feTurbulence',
  'feturbulence',
  'feConvolveMatrix',
  'feconvolvematrix',
  'feMorphology',
  'femorphology',
];

/**
 * Removes scripts, event handlers, `foreignObject`, `<style>` sheets, `<metadata>` (XMP/RDF), comments, `data-*` and
 * editor attributes (e.g. Inkscape's file paths), and every reference outside the document
 * (href/xlink:href other than `#id`, CSS `url()` other than `url(#id)`, `@import`), and the filter primitives whose
 * cost an attribute multiplies (feTurbulence, feConvolveMatrix, feMorphology). Throws INVALID_IMAGE when no
 * `<svg>` root survives.
 */
export function sanitizeSvg(purifier: SvgPurifier, source: string): string {
  const { purify, serializer } = purifier.get();
  const fragment = purify.sanitize(source, {
    USE_PROFILES: { svg: true, svgFilters: true },
    // `metadata` holds XMP/RDF (authors, editor file paths): like a raster's metadata, never published, text included.
    // feTurbulence, feConvolveMatrix and feMorphology cost grows with an attribute (octaves, kernel order, radius)
    // and librsvg cannot be interrupted mid-render: they are removed, so a render's cost follows its pixels.
    FORBID_TAGS: [
      'foreignObject',
      'foreignobject',
      'script',
      'style',
      'iframe',
      'use',
      'metadata',
      ...EXPENSIVE_FILTER_PRIMITIVES,
    ],
    ADD_FORBID_CONTENTS: ['metadata'],
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  const root = fragment.firstElementChild;
  if (!root || root.localName !== 'svg') {
    throw new ProblemError(problems.INVALID_IMAGE, 'The SVG has no <svg> root element after sanitising.');
  }
  return serializer.serializeToString(root);
}

/** Whether `bytes` is plausibly an SVG document: XML (declaration, comments, doctype optional) with an svg root. */
export function looksLikeSvg(bytes: Buffer): boolean {
  let text = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  text = text
    .replace(/^\s*<\?xml[\s\S]*?\?>/, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/^\s*<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/i, '')
    .trimStart();
  return /^<svg[\s>]/i.test(text);
}

interface RasterShape {
  width: number;
  /** Of one frame. */
  height: number;
  frames: number;
}

async function rasterShape(bytes: Buffer, expected: ImageFormat, maxPixels: number): Promise<RasterShape> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ProblemError(problems.INVALID_IMAGE, 'The image header cannot be read.', { cause: err });
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const frames = meta.pages ?? 1;
  if (width <= 0 || height <= 0)
    throw new ProblemError(problems.INVALID_IMAGE, 'The image has no dimensions.');
  if (width * height * frames > maxPixels) {
    throw new ProblemError(
      problems.IMAGE_TOO_LARGE,
      `The image is ${width}×${height} pixels${frames > 1 ? ` × ${frames} frames` : ''}; at most ${maxPixels} ` +
        'pixels (all frames together) are allowed.',
    );
  }
  const format = meta.format === 'jpg' ? 'jpeg' : meta.format;
  if (expected !== 'svg' && format !== expected) {
    throw new ProblemError(
      problems.INVALID_IMAGE,
      `The bytes say ${expected} but decode as ${String(format)}.`,
    );
  }
  return { width, height, frames };
}

/**
 * Decodes every pixel of every frame under the pixel limit (the proof that the file is an image, not just a header)
 * and encodes the pixels again in the same format. sharp writes no metadata unless asked, so EXIF (a phone photo's
 * GPS position), XMP, IPTC, ICC profiles (the pixels are converted to sRGB), comments and PNG text chunks of the
 * upload are gone, and so is anything appended after the image data. A JPEG's EXIF orientation is applied to the
 * pixels first. Animated GIF and WebP keep their frames, delays and loop count.
 */
async function reencodeRaster(
  bytes: Buffer,
  format: Exclude<ImageFormat, 'svg'>,
  frames: number,
  budget: ImageBudget,
): Promise<{ bytes: Buffer; width: number; height: number }> {
  try {
    const pipeline = sharp(bytes, {
      limitInputPixels: budget.maxPixels,
      failOn: 'error',
      animated: frames > 1,
    }).timeout({ seconds: budget.timeoutSeconds });
    const encoded =
      format === 'jpeg'
        ? pipeline.rotate().jpeg({ quality: 90, mozjpeg: true })
        : format === 'png'
          ? pipeline.png()
          : format === 'gif'
            ? pipeline.gif()
            : (frames > 1 ? pipeline : pipeline.rotate()).webp({ quality: 90 });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.pageHeight ?? info.height };
  } catch (err) {
    throw decodeFailure(err, budget);
  }
}

/** INVALID_IMAGE, or IMAGE_TOO_LARGE when the work outlived the time budget. */
function decodeFailure(err: unknown, budget: ImageBudget): ProblemError {
  if (isImageTimeout(err)) {
    return new ProblemError(
      problems.IMAGE_TOO_LARGE,
      `Decoding the image takes longer than ${budget.timeoutSeconds} s, the time allowed for one image.`,
      { cause: err },
    );
  }
  return new ProblemError(problems.INVALID_IMAGE, 'The image cannot be decoded.', { cause: err });
}

/** Renders the sanitised SVG once (small) under the pixel and time budget: the proof that it is a drawable document. */
async function checkSvgRenders(svg: Buffer, budget: ImageBudget): Promise<{ width: number; height: number }> {
  const { width, height } = await rasterShape(svg, 'svg', budget.maxPixels);
  try {
    await renderSvg(svg, { width: 32, height: 32, fit: 'inside' }, budget);
  } catch (err) {
    throw decodeFailure(err, budget);
  }
  return { width, height };
}

/**
 * The stored image is served whole, so it must fit an answer (MAX_ANSWER_BYTES): a header body may be 5 MB, but
 * what is kept of it — re-encoded without metadata, usually smaller — is at most 4 MiB, or the upload is refused.
 */
function servable(image: ValidatedImage): ValidatedImage {
  if (image.bytes.length > MAX_ANSWER_BYTES) {
    throw new ProblemError(
      problems.IMAGE_TOO_LARGE,
      `Re-encoded without its metadata the image is ${image.bytes.length} bytes; a served image is at most ` +
        `${MAX_ANSWER_BYTES} bytes (4 MiB): scale it down or compress it more.`,
    );
  }
  return image;
}

/** What validating an image needs: the service's image budget and its SVG purifier. */
export interface ImageChecks {
  imageBudget: ImageBudget;
  svgPurifier: SvgPurifier;
}

/**
 * Establishes what an upload is from its bytes alone (never its name or declared type): jpeg, png, gif and webp
 * are decoded under the budget's pixels (all frames together) and time, and re-encoded without metadata; SVG is
 * sanitised, then rendered under the same budget. Anything else is 415.
 */
export async function validateImage(checks: ImageChecks, bytes: Buffer): Promise<ValidatedImage> {
  const budget = checks.imageBudget;
  if (bytes.length === 0) throw new ProblemError(problems.EMPTY_FILE, 'The uploaded file is empty.');
  const detected = sniffType(bytes);
  if (detected.kind === 'raster') {
    const { frames } = await rasterShape(bytes, detected.format, budget.maxPixels);
    const clean = await reencodeRaster(bytes, detected.format, frames, budget);
    return servable({ ...clean, contentType: CONTENT_TYPES[detected.format], format: detected.format });
  }
  if (detected.kind === 'text' && looksLikeSvg(bytes)) {
    const clean = Buffer.from(sanitizeSvg(checks.svgPurifier, bytes.toString('utf8')), 'utf8');
    // Its size is known before the render: one that is too large costs no render.
    servable({ bytes: clean, contentType: CONTENT_TYPES.svg, format: 'svg', width: 0, height: 0 });
    const { width, height } = await checkSvgRenders(clean, budget);
    return { bytes: clean, contentType: CONTENT_TYPES.svg, format: 'svg', width, height };
  }
  const what = detected.kind === 'text' ? 'text (not an SVG document)' : detected.mime;
  throw new ProblemError(
    problems.INVALID_FILE_FORMAT,
    `The file is ${what}; only jpeg, png, gif, webp and svg images are accepted.`,
  );
}
