/**
 * RFC 9457 problem details. Every failure a service sends is a ProblemError built from a ProblemDef,
 * so each `code` has one status, one title and one hint, listed at `GET /docs/errors`.
 */
export interface ProblemDef {
  code: string;
  status: number;
  title: string;
  /** What the caller can do about it; shown in the error catalogue. */
  hint: string;
}

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface ProblemOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the body (RFC 9457 extensions), e.g. `validationErrors` or `upstream`. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * What a problem echoes of a request (a field's path, the message about it, the detail that names values) is cut to
 * these lengths in characters, ending in `…`: a 4xx answer stays small whatever names and values the request held.
 */
export const PROBLEM_ECHO_LIMITS = { path: 200, message: 300, detail: 2000 } as const;

/** `text` cut to `max` characters, the cut marked with `…` (never inside a surrogate pair). */
function cutEcho(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A field's path as a problem's `errors` names it. */
export function echoedPath(path: string): string {
  return cutEcho(path, PROBLEM_ECHO_LIMITS.path);
}

export class ProblemError extends Error {
  readonly def: ProblemDef;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(def: ProblemDef, detail: string, options: ProblemOptions = {}) {
    super(cutEcho(detail, PROBLEM_ECHO_LIMITS.detail), { cause: options.cause });
    this.name = 'ProblemError';
    this.def = def;
    this.errors = options.errors?.map((e) => ({
      path: echoedPath(e.path),
      message: cutEcho(e.message, PROBLEM_ECHO_LIMITS.message),
    }));
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  get status(): number {
    return this.def.status;
  }

  get code(): string {
    return this.def.code;
  }

  toBody(): ProblemBody {
    return {
      ...this.extensions,
      type: problemTypeUri(this.def.code),
      title: this.def.title,
      status: this.def.status,
      detail: this.message,
      code: this.def.code,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

/** A relative reference into the service's own error catalogue. */
export function problemTypeUri(code: string): string {
  return `/docs/errors#${code}`;
}

export function defineProblems<const T extends Record<string, Omit<ProblemDef, 'code'>>>(
  defs: T,
): { [K in keyof T]: ProblemDef & { code: K } } {
  const out: Record<string, ProblemDef> = {};
  for (const [code, def] of Object.entries(defs)) out[code] = { code, ...def };
  return out as { [K in keyof T]: ProblemDef & { code: K } };
}

/** Problems every service can answer. Services define their own with `defineProblems`. */
export const commonProblems = defineProblems({
  INVALID_INPUT: {
    status: 400,
    title: 'Invalid input',
    hint:
      'Fix the fields listed in `errors`; each names the parameter and what is wrong with it. No field accepts ' +
      'U+0000 (NUL) or a value nested deeper than 32 levels.',
  },
  INVALID_NAME: {
    status: 400,
    title: 'Invalid ENS name',
    hint: 'The name cannot be normalised with ENSIP-15; check for disallowed characters or empty labels.',
  },
  INVALID_JSON: {
    status: 400,
    title: 'Malformed JSON body',
    hint: 'Send a valid JSON document with `Content-Type: application/json`.',
  },
  UNAUTHORIZED: {
    status: 401,
    title: 'Missing or invalid credential',
    hint: 'Send a valid credential for this operation.',
  },
  FORBIDDEN: {
    status: 403,
    title: 'Not allowed',
    hint: 'The credential is valid but does not allow this operation on this resource.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    title: 'Malformed HTTP request',
    hint: 'The request is not valid HTTP/1.1 (request line, headers or chunked body); the connection is closed.',
  },
  NOT_FOUND: { status: 404, title: 'Not found', hint: 'Check the path against /openapi.json.' },
  REQUEST_TIMEOUT: {
    status: 408,
    title: 'Request timeout',
    hint: 'The request headers or body did not arrive in time; send the whole request promptly.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: 'Request body too large',
    hint: 'Send a smaller body; the limit is in the detail.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported media type',
    hint: 'Send the content type the operation documents.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    title: 'Request header fields too large',
    hint: 'The request line and headers together must stay under 16 KB; send a shorter URL or fewer cookies.',
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Too many requests',
    hint: 'Wait for the number of seconds in `Retry-After` before trying again.',
  },
  INTERNAL_ERROR: {
    status: 500,
    title: 'Internal error',
    hint: 'Retry later; report the `x-request-id` response header if it persists.',
  },
  UPSTREAM_ERROR: {
    status: 502,
    title: 'Upstream failure',
    hint: 'An RPC node or CCIP-Read gateway failed; `upstream` carries its message and code. Retry later.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: 'Service unavailable',
    hint: 'A dependency (database, storage, RPC) is down; retry later.',
  },
  TIME_BUDGET_EXCEEDED: {
    status: 503,
    title: 'Time budget exceeded',
    hint:
      'The request was not answered within the time its route allows (its OpenAPI description says how long); ' +
      'retry after `Retry-After` seconds, with a smaller request if you can.',
  },
  CONCURRENCY_LIMIT_REACHED: {
    status: 503,
    title: 'Too many at once',
    hint:
      'As many requests of this expensive kind as the route allows are running; retry after `Retry-After` ' +
      'seconds.',
  },
});
