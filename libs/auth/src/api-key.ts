import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = /^[a-z][a-z0-9]{0,15}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A new API key `<prefix>_<43 base64url chars>` (32 random bytes). Show it once; store only its hash. */
export function generateApiKey(prefix = 'nrp'): string {
  if (!PREFIX.test(prefix))
    throw new RangeError(`invalid API key prefix "${prefix}": use 1-16 lower-case letters/digits`);
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 of the key, lower-case hex: what a service stores and looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `key` hashes to `storedHash`, compared in constant time. A malformed stored hash never matches. */
export function apiKeyMatches(key: string, storedHash: string): boolean {
  const expected = storedHash.toLowerCase();
  if (!SHA256_HEX.test(expected)) return false;
  return timingSafeEqual(Buffer.from(hashApiKey(key), 'hex'), Buffer.from(expected, 'hex'));
}
