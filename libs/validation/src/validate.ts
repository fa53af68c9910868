import type { Request } from 'express';
import { z } from 'zod';
import { commonProblems, ProblemError, type FieldError } from './problem';
import { INVALID_NAME_ISSUE } from './schemas';

export type RequestPart = 'params' | 'query' | 'body';
const REQUEST_PARTS: readonly RequestPart[] = ['params', 'query', 'body'];

/** One entry per bad field, named like `query.coins` or `body.texts.0.key`. */
export function fieldErrors(part: RequestPart, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
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

/** The request's params, query and body parsed by their schemas, or the one 400 problem naming every bad field. */
export function parseRequest(
  schemas: RequestSchemas,
  req: Pick<Request, RequestPart>,
): Record<RequestPart, unknown> {
  const input: Record<RequestPart, unknown> = { params: {}, query: {}, body: undefined };
  let issues: Array<{ part: RequestPart; error: z.ZodError }> | undefined;
  for (const part of REQUEST_PARTS) {
    const schema = schemas[part];
    if (!schema) continue;
    const result = schema.safeParse(req[part] ?? {});
    if (result.success) input[part] = result.data;
    else (issues ??= []).push({ part, error: result.error });
  }
  if (issues) throw requestProblem(issues);
  return input;
}

/** One 400 for every bad field of the request: INVALID_NAME only when every failure is a name failure. */
function requestProblem(issues: Array<{ part: RequestPart; error: z.ZodError }>): ProblemError {
  const errors = issues.flatMap(({ part, error }) => fieldErrors(part, error));
  const onlyNames = issues.every(({ error }) => error.issues.every(isNameIssue));
  const def = onlyNames ? commonProblems.INVALID_NAME : commonProblems.INVALID_INPUT;
  return new ProblemError(def, errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}
