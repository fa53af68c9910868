import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { renderSvg } from '../images/svg-render';
import type { ImageFormat } from '../images/validation';
import type { ImageBudget } from '../images/work';
import { bundledFontFiles } from './fonts';

export const IMAGE_SIZE = 270;
/** Bumped whenever the template changes, so content-addressed caches and ETags change with it. */
export const TEMPLATE_VERSION = 'v1';
const MAX_GRAPHEMES = 24;

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** A long name shortened in the middle (graphemes, so emoji sequences are never split), keeping its end. */
export function shortenName(name: string, max = MAX_GRAPHEMES): string {
  const parts = graphemes(name);
  if (parts.length <= max) return name;
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return `${parts.slice(0, head).join('')}…${parts.slice(parts.length - tail).join('')}`;
}

/** Font size (px) that fits `text` into the 226 px text box: emoji count as two columns. */
export function fontSizeFor(text: string): number {
  const columns = graphemes(text).reduce((sum, g) => sum + (EMOJI.test(g) ? 2 : 1), 0);
  return Math.max(12, Math.min(32, Math.floor(226 / (Math.max(columns, 1) * 0.62))));
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The SVG of a name's image: the (shortened) name over a gradient, or over the avatar (PNG bytes, already
 * square) with a shade for legibility.
 */
export function imageSvg(name: string, avatarPng?: Buffer): string {
  const text = shortenName(name);
  const size = fontSizeFor(text);
  const background = avatarPng
    ? `<image width="${IMAGE_SIZE}" height="${IMAGE_SIZE}" preserveAspectRatio="xMidYMid slice" href="data:image/png;base64,${avatarPng.toString('base64')}"/>
  <rect width="${IMAGE_SIZE}" height="${IMAGE_SIZE}" fill="url(#shade)"/>`
    : `<rect width="${IMAGE_SIZE}" height="${IMAGE_SIZE}" fill="url(#bg)"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${IMAGE_SIZE}" height="${IMAGE_SIZE}" viewBox="0 0 ${IMAGE_SIZE} ${IMAGE_SIZE}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="${IMAGE_SIZE}" y2="${IMAGE_SIZE}" gradientUnits="userSpaceOnUse">
      <stop offset="0" stop-color="#44BCF0"/><stop offset="0.43" stop-color="#7298F8"/><stop offset="1" stop-color="#A099FF"/>
    </linearGradient>
    <linearGradient id="shade" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0.45" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.6"/>
    </linearGradient>
  </defs>
  ${background}
  <text x="22" y="${IMAGE_SIZE - 28}" font-family="DejaVu Sans, Noto Emoji, sans-serif" font-size="${size}" font-weight="bold" fill="#FFFFFF">${escapeXml(text)}</text>
</svg>`;
}

/**
 * Renders names' images as 270×270 PNGs with the fonts bundled from npm (system fonts only as fallback), prepared
 * on first use and kept by this object (one per service, in its context). The avatar is scaled within `budget`
 * (pixels and time); one that does not fit it falls back to the gradient.
 */
export class NameRenderer {
  private fontFiles: string[] | undefined;

  async render(
    name: string,
    budget: ImageBudget,
    avatar?: { bytes: Buffer; format: ImageFormat },
  ): Promise<Buffer> {
    let avatarPng: Buffer | undefined;
    if (avatar) {
      try {
        avatarPng =
          avatar.format === 'svg'
            ? await renderSvg(
                avatar.bytes,
                { width: IMAGE_SIZE, height: IMAGE_SIZE, fit: 'cover', enlarge: true },
                budget,
              )
            : await sharp(avatar.bytes, { limitInputPixels: budget.maxPixels, animated: false })
                .timeout({ seconds: budget.timeoutSeconds })
                .resize(IMAGE_SIZE, IMAGE_SIZE, { fit: 'cover' })
                .png()
                .toBuffer();
      } catch {
        avatarPng = undefined; // an avatar that cannot be drawn falls back to the gradient
      }
    }
    const fontFiles = (this.fontFiles ??= bundledFontFiles());
    const resvg = new Resvg(imageSvg(name, avatarPng), {
      font: {
        fontFiles,
        loadSystemFonts: fontFiles.length === 0,
        defaultFontFamily: 'DejaVu Sans',
        sansSerifFamily: 'DejaVu Sans',
      },
      fitTo: { mode: 'original' },
    });
    return Buffer.from(resvg.render().asPng());
  }
}
