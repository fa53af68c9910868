import { sql } from 'kysely';

/**
 * An upper bound of a record's JSON length, from its stored columns without reading them into the service: jsonb's
 * text form is never shorter than JSON.stringify's (same escapes, plus spaces); the rest is the fixed fields.
 */
export const recordBytes = sql<number>`(
  octet_length(texts::text) + octet_length(addresses::text) + octet_length(metadata::text)
  + octet_length(full_name) + octet_length(parent_name) + octet_length(label)
  + coalesce(octet_length(contenthash), 0) + coalesce(octet_length(owner), 0) + 512)::int`;

/** The leading rows whose bytes together stay within `maxBytes`; always the first. */
export function withinBytes<T extends { bytes: number }>(rows: T[], maxBytes: number): T[] {
  let total = 0;
  const kept: T[] = [];
  for (const row of rows) {
    total += Number(row.bytes);
    if (kept.length > 0 && total > maxBytes) break;
    kept.push(row);
  }
  return kept;
}
