import type { ErrorRequestHandler, RequestHandler } from 'express';
import { commonProblems, PROBLEM_CONTENT_TYPE, ProblemError } from './problem';

interface HttpLikeError {
  type?: string;
  status?: number;
  statusCode?: number;
  limit?: number;
}

function isHttpLikeError(err: unknown): err is HttpLikeError & Error {
  return err instanceof Error && ('type' in err || 'status' in err || 'statusCode' in err);
}

/** Turns whatever was thrown into a ProblemError; unknown errors become a 500 that leaks nothing. */
export function toProblem(err: unknown): ProblemError {
  if (err instanceof ProblemError) return err;
  if (isHttpLikeError(err)) {
    if (err.type === 'entity.parse.failed') {
      return new ProblemError(commonProblems.INVALID_JSON, 'The request body is not valid JSON.');
    }
    if (err.type === 'entity.too.large') {
      return new ProblemError(
        commonProblems.PAYLOAD_TOO_LARGE,
        `The request body exceeds the limit of ${err.limit ?? 'unknown'} bytes.`,
      );
    }
    // What a parser says (where it stopped, the bytes it met) goes to the logs with the cause, not into the answer.
    if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
      return new ProblemError(
        commonProblems.UNSUPPORTED_MEDIA_TYPE,
        'The body must be UTF-8 and uncompressed.',
        { cause: err },
      );
    }
    const status = err.status ?? err.statusCode;
    if (status === 400) {
      return new ProblemError(
        commonProblems.INVALID_INPUT,
        'The request cannot be read: its URL or body is not well-formed (a broken percent-encoding, for one).',
        { cause: err },
      );
    }
  }
  return new ProblemError(commonProblems.INTERNAL_ERROR, 'An unexpected error occurred.', { cause: err });
}

export function sendProblem(res: Parameters<RequestHandler>[1], problem: ProblemError): void {
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem.toBody()));
}

export interface ProblemLogger {
  error(obj: object, msg: string): void;
}

/**
 * The last middleware: answers what was thrown as problem+json. `classify` maps failures the caller knows to their
 * problems first (the service kit's dependency failures); anything it returns unchanged goes through `toProblem`.
 */
export function problemErrorHandler(
  logger: ProblemLogger,
  classify: (err: unknown) => unknown = (err) => err,
): ErrorRequestHandler {
  return (err, req, res, next) => {
    // An answer already sent whole (a time budget's 503) stands; the handler's late failure is only logged.
    if (res.writableEnded) {
      logger.error({ err, path: req.path }, 'failed after its answer was sent');
      return;
    }
    if (res.headersSent) {
      next(err);
      return;
    }
    const problem = toProblem(classify(err));
    // A 503 without a cause is this service refusing work on purpose (a full pool, a queue at its limit): the
    // access log's warn line says it; a line with a stack per refusal would make a flood costly to log.
    const refusal = problem.status === 503 && problem.cause === undefined;
    if (problem.status >= 500 && !refusal) {
      logger.error({ err: problem.cause ?? problem, code: problem.code, path: req.path }, problem.message);
    }
    sendProblem(res, problem);
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ProblemError(commonProblems.NOT_FOUND, `No route for ${req.method} ${req.path}.`));
};
