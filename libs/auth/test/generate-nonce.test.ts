import { generateNonce } from '../src';

describe('generateNonce', () => {
  it('is 24 alphanumeric characters by default and never repeats', () => {
    const nonces = new Set(Array.from({ length: 1000 }, () => generateNonce()));
    expect(nonces.size).toBe(1000);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9]{24}$/);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateNonce(32)).join(''));
    expect(seen.size).toBe(62);
  });

  it('takes a length of at least 16', () => {
    expect(generateNonce(16)).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(generateNonce(100)).toHaveLength(100);
    expect(() => generateNonce(15)).toThrow(RangeError);
    expect(() => generateNonce(16.5)).toThrow(RangeError);
  });
});
