/**
 * Opaque keyset cursors: base64url of a JSON object. The service that hands one out decodes it with the schema of its
 * own keys; anything else (not base64url, not JSON, other keys) is a 400.
 */
import { z } from 'zod';

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The cursor a page hands out for `position`. */
export function encodeCursor(position: Record<string, unknown>): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(position)));
}

/** A UTF-16 surrogate without its pair: no string of a position the services issue holds one, nor U+0000. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether every string in `value` (a parsed JSON document) could be part of a position a service issued. */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(storable);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).every(([k, v]) => storable(k) && storable(v));
  return true;
}

/**
 * A `cursor` parameter (query or body member) holding a `position`, decoded and checked here for every route that
 * takes one: anything that is not base64url of UTF-8 JSON of a position (a NUL or a lone surrogate in any string
 * included) is a 400 naming the field; at most 1024 characters.
 */
export function cursorField<S extends z.ZodType>(position: S) {
  return z
    .string()
    .max(1024)
    .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor of this service')
    .transform((value, ctx): z.output<S> => {
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64Url(value)));
      } catch {
        json = undefined;
      }
      const parsed = storable(json) ? position.safeParse(json) : undefined;
      if (!parsed?.success) {
        ctx.addIssue({ code: 'custom', message: 'is not a cursor of this service' });
        return z.NEVER;
      }
      return parsed.data;
    })
    .meta({ description: 'The `nextCursor` of the previous page (opaque); absent for the first page.' });
}
