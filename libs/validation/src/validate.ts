import type { RequestHandler } from 'express';
import { z } from 'zod';
import { commonProblems, ProblemError, type FieldError } from './problem';
import { INVALID_NAME_ISSUE } from './schemas';

export type RequestPart = 'params' | 'query' | 'body';

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
  const errors = fieldErrors(part, error);
  const onlyNames = error.issues.length > 0 && error.issues.every(isNameIssue);
  const def = onlyNames ? commonProblems.INVALID_NAME : commonProblems.INVALID_INPUT;
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new ProblemError(def, detail, { errors });
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

/** Validated values are left on `res.locals.input` as `{ params, query, body }`. */
export function validateRequest(schemas: RequestSchemas): RequestHandler {
  return (req, res, next) => {
    const problems: FieldError[] = [];
    const input: Record<RequestPart, unknown> = { params: {}, query: {}, body: undefined };
    let firstProblem: ProblemError | undefined;
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      try {
        input[part] = parsePart(part, schema, req[part]);
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        firstProblem ??= err;
        problems.push(...(err.errors ?? []));
      }
    }
    if (firstProblem) {
      const allNames = problems.length > 0 && firstProblem.def === commonProblems.INVALID_NAME;
      const def = allNames ? commonProblems.INVALID_NAME : commonProblems.INVALID_INPUT;
      next(
        new ProblemError(def, problems.map((e) => `${e.path}: ${e.message}`).join('; '), {
          errors: problems,
        }),
      );
      return;
    }
    res.locals.input = input;
    next();
  };
}
