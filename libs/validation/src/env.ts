import { z } from 'zod';

/**
 * An environment variable set to '' means the same as an unset one: not configured. `schema` (made optional) sees
 * undefined for both.
 */
export const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** A string variable, undefined when unset or empty. */
export const optionalString = unsetWhenEmpty(z.string());
