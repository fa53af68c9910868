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

/** A `cursor` query parameter holding a `position` (decoded and checked); at most 1024 characters. */
export function cursorQuery<S extends z.ZodType>(position: S) {
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
      const parsed = position.safeParse(json);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: 'is not a cursor of this service' });
        return z.NEVER;
      }
      return parsed.data;
    })
    .meta({ description: 'The `nextCursor` of the previous page (opaque); absent for the first page.' });
}
