import { z } from 'zod';

/**
 * The environment without the variables set to '': an empty variable means the same as an unset one (a manifest's
 * `value: ""` configures nothing, and a number or list with a default keeps its default). Every loader of the
 * environment parses this, so no schema has to say it.
 */
export function withoutEmptyVariables(env: Record<string, string | undefined>): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') set[name] = value;
  return set;
}

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
