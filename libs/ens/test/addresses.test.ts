import {
  decodeAddress,
  encodeAddress,
  InvalidAddressError,
  isSupportedCoinType,
  isValidAddress,
} from '../src';
import { randomBytes } from 'node:crypto';
import { getAddress, isAddress } from 'viem';

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const BASE = 2147492101;

describe('EVM addresses', () => {
  it.each([60, BASE, 0x80000000, 0x80000000 + 999999])(
    'coin type %d stores the 20 address bytes',
    (coinType) => {
      const hex = encodeAddress(coinType, VITALIK);
      expect(hex).toBe(VITALIK.toLowerCase());
      expect(decodeAddress(coinType, hex)).toBe(VITALIK);
    },
  );

  it('accepts lowercase input and checksums on decode', () => {
    expect(encodeAddress(60, VITALIK.toLowerCase())).toBe(VITALIK.toLowerCase());
    expect(decodeAddress(60, Buffer.from(VITALIK.slice(2), 'hex'))).toBe(VITALIK);
  });

  it.each([
    '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96046'.replace('dA', 'Da'), // bad EIP-55 checksum
    '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA9604', // 19.5 bytes
    'd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', // no 0x
    'vitalik.eth',
    '',
  ])('rejects %j', (text) => {
    expect(isValidAddress(60, text)).toBe(false);
    expect(() => encodeAddress(BASE, text)).toThrow(InvalidAddressError);
  });

  it('checksums and checks checksums as viem does (strict isAddress, getAddress)', () => {
    for (let i = 0; i < 200; i++) {
      const lower = `0x${randomBytes(20).toString('hex')}` as const;
      const checksummed = getAddress(lower);
      expect(decodeAddress(60, lower)).toBe(checksummed);
      for (const text of [
        lower,
        checksummed,
        lower.toUpperCase().replace('0X', '0x'),
        checksummed.replace(/[a-f]/, (c) => c.toUpperCase()),
      ]) {
        expect(isValidAddress(60, text)).toBe(isAddress(text, { strict: true }));
      }
    }
  });

  it('rejects stored bytes of the wrong length', () => {
    expect(() => decodeAddress(60, '0x1234')).toThrow(/expected 20 bytes/);
  });
});

describe('non-EVM addresses', () => {
  it.each([
    // Bitcoin P2PKH (genesis coinbase) and P2WPKH (BIP-173 vector): stored as the output script.
    [0, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '0x76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac'],
    [0, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '0x0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    // Bitcoin P2SH
    [0, '3Ai1JZ8pdJb2ksieUV8FsxSNVJCpoPi8W6', '0xa91462e907b15cbf27d5425399ebf6f0fb50ebb88f1887'],
    // Solana system program: 32 zero bytes
    [501, '11111111111111111111111111111111', `0x${'00'.repeat(32)}`],
    // Aptos framework account (short form is zero-padded)
    [637, '0x1', `0x${'00'.repeat(31)}01`],
  ])('coin %d: %s', (coinType, text, hex) => {
    expect(encodeAddress(coinType, text)).toBe(hex);
  });

  it('round-trips Bitcoin and Solana', () => {
    for (const text of ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4']) {
      expect(decodeAddress(0, encodeAddress(0, text))).toBe(text);
    }
    const sol = 'So11111111111111111111111111111111111111112';
    const bytes = encodeAddress(501, sol);
    expect(bytes).toHaveLength(2 + 64);
    expect(decodeAddress(501, bytes)).toBe(sol);
    expect(decodeAddress(637, encodeAddress(637, '0x1'))).toBe(`0x${'0'.repeat(63)}1`);
  });

  it.each([
    [0, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'], // base58check checksum
    [0, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'], // bech32 checksum
    [0, VITALIK],
    [501, 'not-base58-0OIl'],
    [501, '1111'], // wrong length
    [637, '0xzz'],
  ])('coin %d rejects %s', (coinType, text) => {
    expect(isValidAddress(coinType, text)).toBe(false);
    let caught: unknown;
    try {
      encodeAddress(coinType, text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidAddressError);
    expect((caught as InvalidAddressError).code).toBe('INVALID_ADDRESS');
    expect((caught as InvalidAddressError).message).toContain(`coin type ${coinType}`);
  });

  it('reports unsupported and invalid coin types', () => {
    expect(isSupportedCoinType(0)).toBe(true);
    expect(isSupportedCoinType(999999)).toBe(false);
    expect(isSupportedCoinType(-1)).toBe(false);
    expect(() => encodeAddress(999999, 'x')).toThrow(/not supported/);
    expect(() => encodeAddress(-1, VITALIK)).toThrow(/not a valid coin type/);
  });

  it('decodes empty bytes as an unset record and rejects bad hex', () => {
    expect(decodeAddress(0, '0x')).toBe('');
    expect(() => decodeAddress(0, '0x123' as `0x${string}`)).toThrow(InvalidAddressError);
  });
});
