import createDOMPurify, { type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';
import sharp from 'sharp';
import { ProblemError } from '@nrp/validation';
import { problems } from './problems';
import { sniffType } from './sniff';

// libvips' operation cache holds decoded images between calls; uploads are one-off, so it only costs memory.
sharp.cache(false);
// One libvips thread per operation: uploads run in parallel already (libuv pool), and every extra vips thread
// keeps its own malloc arena, which is what makes RSS grow under load.
sharp.concurrency(1);

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'svg';

export interface ValidatedImage {
  /** The bytes to store: the upload unchanged for rasters, the sanitised document for SVG. */
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

let purifier: DOMPurify | undefined;
let xmlSerializer: { serializeToString(node: Node): string } | undefined;

/** One DOMPurify over one jsdom window per process (creating a window is the slow part). */
function getPurifier(): { purify: DOMPurify; serializer: { serializeToString(node: Node): string } } {
  if (!purifier || !xmlSerializer) {
    const { window } = new JSDOM('');
    purifier = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
    purifier.addHook('uponSanitizeAttribute', (_node, data) => {
      const name = data.attrName.toLowerCase();
      const value = data.attrValue.trim();
      // Only same-document references (`#id`): no http(s), data: or javascript: targets.
      if ((name === 'href' || name === 'xlink:href' || name === 'src') && !value.startsWith('#')) {
        data.keepAttr = false;
      }
      if (/url\s*\(/i.test(value) && /url\s*\(\s*['"]?\s*(?!#)/i.test(value)) data.keepAttr = false;
      if (/@import/i.test(value)) data.keepAttr = false;
    });
    xmlSerializer = new window.XMLSerializer();
  }
  return { purify: purifier, serializer: xmlSerializer };
}

/**
 * Removes scripts, event handlers, `foreignObject`, `<style>` sheets and every reference outside the document
 * (href/xlink:href other than `#id`, CSS `url()` other than `url(#id)`, `@import`). Throws INVALID_IMAGE when no
 * `<svg>` root survives.
 */
export function sanitizeSvg(source: string): string {
  const { purify, serializer } = getPurifier();
  const fragment = purify.sanitize(source, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['foreignObject', 'foreignobject', 'script', 'style', 'iframe', 'use'],
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

async function rasterDimensions(
  bytes: Buffer,
  expected: ImageFormat,
  maxPixels: number,
): Promise<{ width: number; height: number }> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ProblemError(problems.INVALID_IMAGE, 'The image header cannot be read.', { cause: err });
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width <= 0 || height <= 0)
    throw new ProblemError(problems.INVALID_IMAGE, 'The image has no dimensions.');
  if (width * height > maxPixels) {
    throw new ProblemError(
      problems.IMAGE_TOO_LARGE,
      `The image is ${width}×${height} pixels; at most ${maxPixels} pixels are allowed.`,
    );
  }
  const format = meta.format === 'jpg' ? 'jpeg' : meta.format;
  if (expected !== 'svg' && format !== expected) {
    throw new ProblemError(
      problems.INVALID_IMAGE,
      `The bytes say ${expected} but decode as ${String(format)}.`,
    );
  }
  try {
    // Decode every pixel (first frame) under the pixel limit: proves the file is an image, not just a header.
    await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', animated: false })
      .resize(32, 32, { fit: 'inside' })
      .png()
      .toBuffer();
  } catch (err) {
    throw new ProblemError(problems.INVALID_IMAGE, 'The image cannot be decoded.', { cause: err });
  }
  return { width, height };
}

/**
 * Establishes what an upload is from its bytes alone (never its name or declared type): jpeg, png, gif and webp
 * are decoded under `maxPixels`; SVG is sanitised, then rendered under the same limit. Anything else is 415.
 */
export async function validateImage(bytes: Buffer, maxPixels: number): Promise<ValidatedImage> {
  if (bytes.length === 0) throw new ProblemError(problems.EMPTY_FILE, 'The uploaded file is empty.');
  const detected = sniffType(bytes);
  if (detected.kind === 'raster') {
    const { width, height } = await rasterDimensions(bytes, detected.format, maxPixels);
    return { bytes, contentType: CONTENT_TYPES[detected.format], format: detected.format, width, height };
  }
  if (detected.kind === 'text' && looksLikeSvg(bytes)) {
    const clean = Buffer.from(sanitizeSvg(bytes.toString('utf8')), 'utf8');
    const { width, height } = await rasterDimensions(clean, 'svg', maxPixels);
    return { bytes: clean, contentType: CONTENT_TYPES.svg, format: 'svg', width, height };
  }
  const what = detected.kind === 'text' ? 'text (not an SVG document)' : detected.mime;
  throw new ProblemError(
    problems.INVALID_FILE_FORMAT,
    `The file is ${what}; only jpeg, png, gif, webp and svg images are accepted.`,
  );
}
