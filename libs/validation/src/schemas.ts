import { getAddress, isAddress, isHexString } from 'ethers';
import { z } from 'zod';
import { normalizeName } from '@nrp/ens';

/** Marks a zod issue as an ENS name failure so the request fails with INVALID_NAME rather than INVALID_INPUT. */
export const INVALID_NAME_ISSUE = 'INVALID_NAME';

/** An ENS name, normalised (ENSIP-15) on the way in. */
export function ensName(limits: { min?: number; max?: number } = {}) {
  const { min = 1, max = 255 } = limits;
  return z
    .string()
    .min(min)
    .max(max)
    .transform((value, ctx) => {
      try {
        return normalizeName(value);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: err instanceof Error ? err.message : 'not a valid ENS name',
          params: { problem: INVALID_NAME_ISSUE },
        });
        return z.NEVER;
      }
    })
    .meta({ description: 'ENS name; normalised with ENSIP-15 before use.' });
}

const ADDRESS_MESSAGE = 'must be a 0x-prefixed 20-byte Ethereum address';

/** 0x and 40 hex digits, all lower or upper case, or mixed case that is its EIP-55 checksum. */
function isAcceptedAddress(value: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return false;
  const digits = value.slice(2);
  // One case throughout carries no checksum; only mixed case costs a keccak-256 to check.
  return digits === digits.toLowerCase() || digits === digits.toUpperCase() || isAddress(value);
}

/**
 * An Ethereum address: 0x and 40 hex digits, all lower or upper case, or mixed case that is its EIP-55 checksum; the
 * output is EIP-55 checksummed. The one address schema of requests and configuration.
 */
export const ethAddress = z
  .string()
  .transform((value, ctx) => {
    if (isAcceptedAddress(value)) return getAddress(value);
    ctx.addIssue({ code: 'custom', message: ADDRESS_MESSAGE });
    return z.NEVER;
  })
  .meta({
    description: 'Ethereum address (0x + 40 hex digits).',
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  });

/**
 * An address accepted as `ethAddress` accepts it, answered in lower case: for a CCIP-Read gateway's `sender`
 * (EIP-3668 clients send lower case), where an EIP-55 checksum of every request would cost more than a cached answer.
 */
export const lowerCaseAddress = z
  .string()
  .transform((value, ctx) => {
    if (isAcceptedAddress(value)) return value.toLowerCase();
    ctx.addIssue({ code: 'custom', message: ADDRESS_MESSAGE });
    return z.NEVER;
  })
  .meta({
    description: 'Ethereum address (0x + 40 hex digits), read in lower case.',
    example: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  });

export const hexString = z
  .string()
  .refine((value) => isHexString(value), { message: 'must be a 0x-prefixed hex string' });

/** A boolean in a query string: `true`/`false`/`1`/`0`. */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1')
  .meta({ description: 'true, false, 1 or 0' });

/** A comma-separated list in a query string, trimmed, empty items dropped, duplicates removed. */
export function commaList<T extends z.ZodType<unknown, string>>(item: T, limits: { max: number }) {
  return z
    .string()
    .max(limits.max * 100)
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part.length > 0),
      ),
    ])
    .pipe(z.array(item).min(1, 'must list at least one item').max(limits.max, `at most ${limits.max} items`));
}
