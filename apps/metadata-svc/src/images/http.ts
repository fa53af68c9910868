import { createHash } from 'node:crypto';

/** The Content-Security-Policy of every image answer: an SVG opened directly runs nothing and loads nothing. */
export const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

/**
 * The strong ETag (quoted) of an image: sha256 over its content (the bytes, or what a rendered image is made of),
 * 27 base64url characters.
 */
export function contentEtag(...parts: Array<string | Buffer>): string {
  const hash = createHash('sha256');
  parts.forEach((part, i) => {
    if (i > 0) hash.update('\0');
    hash.update(part);
  });
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}
