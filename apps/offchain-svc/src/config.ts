import { z } from 'zod';
import { normalizeName } from '@nrp/ens';
import { baseConfigSchema } from '@nrp/server';
import { ethAddress } from '@nrp/validation';

/** An unset variable and an empty one mean the same: not configured. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const nameList = z.string().transform((value, ctx) => {
  const names: string[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (!part) continue;
    try {
      names.push(normalizeName(part));
    } catch {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not a valid ENS name` });
      return z.NEVER;
    }
  }
  return names;
});

/** Where the service keeps its tables; the key CLI reads the same variables. */
export const databaseConfigSchema = z.object({
  /** postgres://… ; when unset an embedded PGlite database is used (in PGLITE_DATA_DIR, or in memory). */
  DATABASE_URL: optional(z.url()),
  DATABASE_SCHEMA: optional(z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _')),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  PGLITE_DATA_DIR: optional(z.string()),
});

export const configSchema = baseConfigSchema(3003).extend({
  ...databaseConfigSchema.shape,
  /** Private key (0x + 64 hex) that signs CCIP-Read answers; its address is a signer of the OffchainResolver. */
  GATEWAY_SIGNER_KEY: optional(
    z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits'),
  ),
  /**
   * The OffchainResolver the answers are signed for. Default: the request's `sender`, which is the resolver when a
   * client calls it directly; set it when clients resolve through a universal resolver that re-emits the lookup
   * with itself as `sender`.
   */
  GATEWAY_RESOLVER_ADDRESS: optional(ethAddress),
  /** Validity of a signed gateway answer, in seconds. */
  GATEWAY_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(300),
  /** SHA-256 (hex) of an API key to install at start-up (e.g. from a secret), valid for BOOTSTRAP_API_KEY_PARENTS. */
  BOOTSTRAP_API_KEY_HASH: optional(z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (SHA-256)')),
  BOOTSTRAP_API_KEY_PARENTS: optional(nameList),
});

export type Config = z.output<typeof configSchema>;
export type DatabaseConfig = z.output<typeof databaseConfigSchema>;
