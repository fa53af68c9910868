/** One member of a problem's `errors`: which input field failed, and why. */
export interface ProblemFieldError {
  path: string;
  message: string;
}

/**
 * Any answer that is not a 2xx with the expected JSON body. A problem+json answer (RFC 9457) keeps its members;
 * anything else (a proxy's HTML 502, an empty body, JSON that is not a problem) gets the code `UNEXPECTED_RESPONSE`
 * and a detail naming the status and content type, with the raw text in `body`.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: ProblemFieldError[],
    /** The parsed problem+json body, or the raw text of an answer that was not one. */
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'ServiceError';
  }
}

/** Checks a parsed response body; a zod schema is one (see the `*ResponseSchemas` maps). */
export interface ResponseParser {
  parse(value: unknown): unknown;
}

export interface ClientOptions {
  /** The service's base URL, e.g. `https://metadata.example.com` (a path prefix is kept). */
  baseUrl: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  /**
   * Opt-in response validation: the parser to run on each method's response, by method name, e.g.
   * `resolverResponseSchemas` from `@nrp/client/resolver/schemas`. Without it responses are typed, not checked.
   */
  responseSchemas?: Readonly<Record<string, ResponseParser>>;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  formData?: FormData;
  headers?: Record<string, string>;
}

export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

export function serviceUrl(options: ClientOptions, path: string): URL {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  return new URL(path.replace(/^\//, ''), base);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function unexpected(response: Response, text: string, what: string): ServiceError {
  const type = response.headers.get('content-type') ?? 'no content type';
  return new ServiceError(
    response.status,
    UNEXPECTED_RESPONSE,
    `${response.status} ${response.statusText} with ${text ? type : 'an empty body'}: ${what}`,
    [],
    text,
  );
}

/** The ServiceError for a non-2xx answer, whatever its body. */
export async function problemOf(response: Response): Promise<ServiceError> {
  const text = await response.text();
  const parsed = parseJson(text);
  if (!parsed.ok || !isRecord(parsed.value) || typeof parsed.value.code !== 'string') {
    return unexpected(response, text, 'not a problem+json answer');
  }
  const problem = parsed.value;
  const errors = Array.isArray(problem.errors)
    ? problem.errors.filter(isRecord).map((e) => ({ path: String(e.path), message: String(e.message) }))
    : [];
  return new ServiceError(
    response.status,
    problem.code as string,
    typeof problem.detail === 'string' ? problem.detail : response.statusText,
    errors,
    problem,
  );
}

/** One JSON request of client method `operation`; its response checked only when the caller opted in. */
export async function requestJson<T>(
  options: ClientOptions,
  operation: string,
  path: string,
  request: RequestOptions = {},
): Promise<T> {
  const url = serviceUrl(options, path);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...options.headers,
    ...request.headers,
  };
  let body: string | FormData | undefined;
  if (request.formData) body = request.formData;
  else if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  const response = await (options.fetch ?? fetch)(url, { method: request.method ?? 'GET', headers, body });
  if (!response.ok) throw await problemOf(response);
  const text = await response.text();
  if (!text) return undefined as T;
  const parsed = parseJson(text);
  if (!parsed.ok) throw unexpected(response, text, 'the body is not JSON');
  const parser = options.responseSchemas?.[operation];
  return (parser ? parser.parse(parsed.value) : parsed.value) as T;
}
