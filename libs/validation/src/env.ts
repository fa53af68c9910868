import { z } from 'zod';

/**
 * An environment variable set to '' means the same as an unset one: not configured. `schema` (made optional) sees
 * undefined for both.
 */
export const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** A string variable, undefined when unset or empty. */
export const optionalString = unsetWhenEmpty(z.string());

/**
 * For a config's superRefine: with NODE_ENV=production `variable` must be set, because what its absence falls back to
 * (`fallback`, e.g. an embedded database) is for development and tests.
 */
export function requiredInProduction<K extends string>(variable: K, fallback: string) {
  return (env: { NODE_ENV?: string } & { [P in K]?: unknown }, ctx: z.RefinementCtx): void => {
    if (env.NODE_ENV === 'production' && !env[variable]) {
      ctx.addIssue({
        code: 'custom',
        path: [variable],
        message: `required when NODE_ENV=production (${fallback} is for development and tests)`,
      });
    }
  };
}
