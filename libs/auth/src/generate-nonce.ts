import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes at or above this are rejected so that every character is equally likely (248 = 4 * 62). */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** A cryptographically random alphanumeric nonce; 24 characters (~143 bits) by default, at least 16. */
export function generateNonce(length = 24): string {
  if (!Number.isInteger(length) || length < 16) throw new RangeError('a nonce has at least 16 characters');
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}
