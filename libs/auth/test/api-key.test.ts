import { createHash } from 'node:crypto';
import { apiKeyMatches, generateApiKey, hashApiKey } from '../src';

describe('generateApiKey', () => {
  it('is <prefix>_<43 base64url chars> and random', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(/^nrp_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey('ops')).toMatch(/^ops_[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a prefix that would make keys ambiguous', () => {
    for (const prefix of ['', 'a_b', 'UPPER', 'x'.repeat(17)])
      expect(() => generateApiKey(prefix)).toThrow(RangeError);
  });
});

describe('hashApiKey', () => {
  it('is the sha256 hex digest (test vector)', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });
});

describe('apiKeyMatches', () => {
  const key = generateApiKey();
  const stored = hashApiKey(key);

  it('matches the key it was hashed from, also against an upper-case stored hash', () => {
    expect(apiKeyMatches(key, stored)).toBe(true);
    expect(apiKeyMatches(key, stored.toUpperCase())).toBe(true);
  });

  it('does not match another key, a truncated key, or a malformed hash', () => {
    expect(apiKeyMatches(generateApiKey(), stored)).toBe(false);
    expect(apiKeyMatches(key.slice(0, -1), stored)).toBe(false);
    expect(apiKeyMatches(key, stored.slice(0, 63))).toBe(false);
    expect(apiKeyMatches(key, '')).toBe(false);
    expect(apiKeyMatches(key, `${stored.slice(0, 63)}z`)).toBe(false);
    expect(apiKeyMatches(stored, stored)).toBe(false);
  });
});
