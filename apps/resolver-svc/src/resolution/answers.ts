import type { Response } from 'express';
import type { z } from 'zod';
import { renderJson, sendRenderedJson, type Logger, type RenderedJson } from '@nrp/server';
import { bulkError } from '../problems';

/** `Cache-Control` fitting what is left of the answer's TTL. */
export function setCacheControl(res: Response, expiresAt: number, now = Date.now()): void {
  const seconds = Math.max(0, Math.floor((expiresAt - now) / 1000));
  res.setHeader('cache-control', seconds > 0 ? `public, max-age=${seconds}` : 'no-cache');
}

export const cacheControlHeader = {
  'Cache-Control': 'public, max-age=<seconds left of the cached answer> (no-cache when caching is off)',
};

export interface RenderedAnswers {
  /**
   * Answers the JSON `build()` makes from the cached `source` value, which `schema` (the route's 200 schema) types;
   * renders it once per value and schema, and sets Cache-Control for `expiresAt`. `source` must be the object the
   * cache returned.
   */
  send<S extends z.ZodType>(
    res: Response,
    schema: S,
    source: object,
    build: () => z.input<S>,
    expiresAt: number,
  ): void;
}

/** Rendered bodies per cached value and answer schema: a warm hit is served without re-serialising or re-hashing. */
export function renderedAnswers(): RenderedAnswers {
  const bodies = new WeakMap<object, Map<z.ZodType, RenderedJson>>();
  return {
    send(res, schema, source, build, expiresAt) {
      let bySchema = bodies.get(source);
      if (!bySchema) {
        bySchema = new Map();
        bodies.set(source, bySchema);
      }
      let rendered = bySchema.get(schema);
      if (!rendered) {
        rendered = renderJson(build());
        bySchema.set(schema, rendered);
      }
      setCacheControl(res, expiresAt);
      sendRenderedJson(res, rendered);
    },
  };
}

type BulkErrorEntry = ReturnType<typeof bulkError>;

/**
 * Runs one lookup per bulk item, in input order. A failing item becomes the error entry the single endpoint would
 * have answered, without failing the others; the answer's Cache-Control is the shortest TTL of its items, and
 * `no-cache` when an item failed upstream (worth retrying at once).
 */
export async function runBulk<S>(
  inputs: string[],
  logger: Logger,
  res: Response,
  lookup: (input: string, index: number) => Promise<{ entry: S; expiresAt: number }>,
): Promise<Array<S | BulkErrorEntry>> {
  let expiresAt = Infinity;
  let failed = false;
  const results = await Promise.all(
    inputs.map(async (input, index) => {
      try {
        const done = await lookup(input, index);
        expiresAt = Math.min(expiresAt, done.expiresAt);
        return done.entry;
      } catch (err) {
        const entry = bulkError(input, err);
        if (entry.status >= 500) {
          failed = true;
          if (entry.code !== 'UPSTREAM_ERROR') logger.error({ err, input }, 'bulk entry failed');
        }
        return entry;
      }
    }),
  );
  if (failed || !Number.isFinite(expiresAt)) res.setHeader('Cache-Control', 'no-cache');
  else setCacheControl(res, expiresAt);
  return results;
}
