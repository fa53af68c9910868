import { hash } from 'node:crypto';
import type { Response } from 'express';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The weak ETag Express generates for a body (`W/"<byte length in hex>-<SHA-1, base64, 27 chars>"`, as the `etag`
 * package makes it), in one hashing call: every kit app uses it, so an answer's ETag is the same whoever computes it.
 */
export function weakEtag(body: string | Buffer): string {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  return `W/"${length.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
}

/**
 * Answers `value` as JSON like `res.json`, sent as bytes: Express parses and rewrites the content type of every
 * string body it sends, a measurable share of a cached answer. A content type the route set is kept.
 */
export function sendJson(res: Response, value: unknown): void {
  if (!res.hasHeader('content-type')) res.setHeader('content-type', JSON_CONTENT_TYPE);
  res.send(Buffer.from(JSON.stringify(value), 'utf8'));
}

/** A JSON answer serialised once, with its ETag: a cached answer is sent as these bytes, not serialised again. */
export interface RenderedJson {
  body: Buffer;
  etag: string;
}

export function renderJson(value: unknown): RenderedJson {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return { body, etag: weakEtag(body) };
}

/** Sends `rendered` (Express still answers 304 to a matching If-None-Match). */
export function sendRenderedJson(res: Response, rendered: RenderedJson): void {
  res.setHeader('etag', rendered.etag);
  res.setHeader('content-type', JSON_CONTENT_TYPE);
  res.send(rendered.body);
}
