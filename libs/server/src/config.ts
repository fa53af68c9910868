import { z } from 'zod';

/** A bad configuration value. `main` prints its one-line message and exits 1. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const commaSeparated = z.string().transform((value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Variables every service reads. Services extend this with their own. */
export function baseConfigSchema(defaultPort: number) {
  return z.object({
    PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Comma-separated origins, or `*`. */
    CORS_ORIGINS: commaSeparated.default(['*']),
    /** Express `trust proxy`: `false`, `true`, a hop count, or a comma-separated list of subnets. */
    TRUST_PROXY: z.string().default('false'),
    REDIS_URL: z.url().optional(),
    /** Requests per minute per client IP across all routes, before the stricter per-route limits. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10000),
  });
}

export type BaseConfig = z.output<ReturnType<typeof baseConfigSchema>>;

/** Parses the environment; the first bad variable becomes one clear line. */
export function loadConfig<T extends z.ZodType>(
  schema: T,
  env: NodeJS.ProcessEnv = process.env,
): z.output<T> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    const value = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    const got = value === undefined ? 'it is not set' : `got ${JSON.stringify(value)}`;
    return `${variable}: ${issue.message} (${got})`;
  });
  throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
}

/** Express's `trust proxy` value from TRUST_PROXY. */
export function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
