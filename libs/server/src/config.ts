import { z } from 'zod';
import { withoutEmptyVariables } from '@nrp/validation';

/** A bad configuration value. `main` prints its one-line message and exits 1. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A comma-separated list; blanks around items and empty items are dropped. */
export const commaSeparated = z.string().transform((value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const isOrigin = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
};

/** CORS_ORIGINS: `*`, or comma-separated origins (`https://app.example.com`, no path or trailing slash). */
export const originList = commaSeparated.pipe(
  z.array(
    z
      .string()
      .refine(
        (value) => value === '*' || isOrigin(value),
        'must be * or origins such as https://app.example.com',
      ),
  ),
);

/** Comma-separated `host` or `host:port` (e.g. the domains EIP-4361 sign-in messages may name). */
export const hostList = commaSeparated.pipe(
  z.array(z.string().regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'must be host or host:port entries')),
);

export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().min(0);

/** Variables every service reads. Services extend this with their own. */
export function baseConfigSchema(defaultPort: number) {
  return z.object({
    PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Comma-separated origins, or `*`. */
    CORS_ORIGINS: originList.default(['*']),
    /** Express `trust proxy`: `false`, `true`, a hop count, or a comma-separated list of subnets. */
    TRUST_PROXY: z.string().default('false'),
    REDIS_URL: z.url().optional(),
    /** Requests per minute per client IP across all routes, before the stricter per-route limits. */
    RATE_LIMIT_PER_MINUTE: positiveInt.default(600),
    SHUTDOWN_GRACE_MS: nonNegativeInt.default(10000),
    /**
     * With `--expose-gc`: once requests were served and none arrived for this long, one full collection gives the
     * memory they grew back to the system (0: never).
     */
    IDLE_MEMORY_RELEASE_MS: nonNegativeInt.default(10000),
  });
}

export type BaseConfig = z.output<ReturnType<typeof baseConfigSchema>>;

const SECRET_NAME = /KEY|SECRET|PASSWORD|TOKEN/i;

const URL_CREDENTIALS = /\/\/[^/@\s]*@/;

/** How a bad value is quoted in the error line: secrets never, URLs without their credentials. */
function describeValue(variable: string, value: string | undefined): string {
  if (value === undefined) return 'it is not set';
  if (SECRET_NAME.test(variable)) return 'the value is not shown';
  return `got ${JSON.stringify(value.replace(URL_CREDENTIALS, '//***@'))}`;
}

/** A URL as far as its host: RPC providers put API keys in paths and queries, databases put passwords in it. */
function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (!url.host) return value;
    return url.pathname === '/' && !url.search && !url.username ? value : `${url.protocol}//${url.host}/***`;
  } catch {
    return value;
  }
}

/** The parsed configuration as the startup log line shows it: secrets replaced, URLs cut to their host. */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([variable, value]) => {
      if (value === undefined || value === null) return [variable, value];
      if (SECRET_NAME.test(variable)) return [variable, '[redacted]'];
      if (typeof value === 'string') return [variable, redactUrl(value)];
      if (value instanceof URL) return [variable, redactUrl(value.href)];
      if (Array.isArray(value))
        return [variable, value.map((item) => (typeof item === 'string' ? redactUrl(item) : item))];
      return [variable, value];
    }),
  );
}

/** Parses the environment; every bad variable is named on one line. */
export function loadConfig<T extends z.ZodType>(
  schema: T,
  env: NodeJS.ProcessEnv = process.env,
): z.output<T> {
  const result = schema.safeParse(withoutEmptyVariables(env));
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    // The variable, also when the issue is about one item of a list it holds.
    const variable = issue.path.length > 0 ? String(issue.path[0]) : '(environment)';
    const value = issue.path.length > 0 ? env[variable] : undefined;
    return `${variable}: ${issue.message} (${describeValue(variable, value)})`;
  });
  throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
}

/** Express's `trust proxy` value from TRUST_PROXY. */
export function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
