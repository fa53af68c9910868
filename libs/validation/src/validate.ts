import type { Request } from 'express';
import { z } from 'zod';
import { commonProblems, echoedPath, ProblemError, type FieldError } from './problem';
import { INVALID_NAME_ISSUE } from './schemas';

export type RequestPart = 'params' | 'query' | 'body';
const REQUEST_PARTS: readonly RequestPart[] = ['params', 'query', 'body'];

/** One entry per bad field, named like `query.coins` or `body.texts.0.key`; an unknown field is named itself. */
export function fieldErrors(part: RequestPart, error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = [part, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'unknown field' }));
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
}

function isNameIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.problem === INVALID_NAME_ISSUE;
}

export function validationProblem(part: RequestPart, error: z.ZodError): ProblemError {
  return requestProblem([{ part, error }]);
}

/** Parses one part of a request or throws the 400 problem for it. */
export function parsePart<T extends z.ZodType>(part: RequestPart, schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw validationProblem(part, result.error);
  return result.data;
}

export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

/** At most this many bad fields are listed in `errors`, and the first few of them in `detail`. */
export const MAX_FIELD_ERRORS = 100;
const DETAIL_FIELD_ERRORS = 10;

/** Deeper request values are refused before any schema (or a recursive walk) sees them. */
export const MAX_INPUT_DEPTH = 32;
const NUL_IN_STRING = 'must not contain U+0000 (NUL)';

/**
 * What no field accepts, whatever its schema says: U+0000 in keys or strings (PostgreSQL text and jsonb cannot
 * store it), and nesting deeper than MAX_INPUT_DEPTH (a recursive parser or serialiser would overflow the stack).
 * Walks without recursion, stops at the first ten findings, and names a field only when it reports one.
 */
function unacceptableValues(root: unknown, part: RequestPart): FieldError[] {
  if (typeof root === 'string')
    return root.includes('\u0000') ? [{ path: part, message: NUL_IN_STRING }] : [];
  const found: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: root, path: part, depth: 0 },
  ];
  while (stack.length > 0 && found.length < 10) {
    const { value, path, depth } = stack.pop() as (typeof stack)[number];
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      found.push({ path, message: `must not be nested deeper than ${MAX_INPUT_DEPTH} levels` });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (found.length >= 10) break;
      const item: unknown = (value as Record<string, unknown>)[key];
      if (key.includes('\u0000'))
        found.push({ path, message: 'must not have a key containing U+0000 (NUL)' });
      if (typeof item === 'string') {
        if (item.includes('\u0000')) found.push({ path: `${path}.${key}`, message: NUL_IN_STRING });
      } else if (item !== null && typeof item === 'object') {
        stack.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
      }
    }
  }
  return found;
}

/**
 * The request's params, query and body parsed by their schemas, or the one 400 problem naming every bad field
 * (schema failures and values no field accepts).
 */
export function parseRequest(
  schemas: RequestSchemas,
  req: Pick<Request, RequestPart>,
): Record<RequestPart, unknown> {
  const input: Record<RequestPart, unknown> = { params: {}, query: {}, body: undefined };
  let issues: Array<{ part: RequestPart; error: z.ZodError }> | undefined;
  let refused: FieldError[] | undefined;
  for (const part of REQUEST_PARTS) {
    const schema = schemas[part];
    if (!schema) continue;
    // Read once: Express parses `req.query` again on every read.
    const value = req[part];
    const unacceptable = unacceptableValues(value, part);
    if (unacceptable.length > 0) (refused ??= []).push(...unacceptable);
    const result = schema.safeParse(value ?? {});
    if (result.success) input[part] = result.data;
    else (issues ??= []).push({ part, error: result.error });
  }
  if (issues || refused) throw requestProblem(issues ?? [], refused ?? []);
  return input;
}

/**
 * One 400 for every bad field of the request (`refused`: values no field accepts, reported where the schema did
 * not already fail): INVALID_NAME only when every failure is a name failure.
 */
function requestProblem(
  issues: Array<{ part: RequestPart; error: z.ZodError }>,
  refused: FieldError[] = [],
): ProblemError {
  const schemaErrors = issues.flatMap(({ part, error }) => fieldErrors(part, error));
  const more = refused.filter((e) => !schemaErrors.some((s) => s.path === e.path));
  const all = [...schemaErrors, ...more];
  const onlyNames = more.length === 0 && issues.every(({ error }) => error.issues.every(isNameIssue));
  const def = onlyNames ? commonProblems.INVALID_NAME : commonProblems.INVALID_INPUT;
  // A request's own size must not multiply into its answer: the first errors are named, the rest counted.
  const errors = all.slice(0, MAX_FIELD_ERRORS);
  const listed = all.slice(0, DETAIL_FIELD_ERRORS).map((e) => `${echoedPath(e.path)}: ${e.message}`);
  if (all.length > DETAIL_FIELD_ERRORS) listed.push(`and ${all.length - DETAIL_FIELD_ERRORS} more`);
  return new ProblemError(def, listed.join('; '), { errors });
}
