import type { z } from 'zod';

/** A failure the service answered with problem+json. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'ServiceError';
  }
}

export interface ClientOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  formData?: FormData;
  headers?: Record<string, string>;
}

/** The URL of `path` under the service's base URL, with the defined `query` values. */
export function serviceUrl(options: ClientOptions, path: string, query: RequestOptions['query'] = {}): URL {
  const url = new URL(
    path.replace(/^\//, ''),
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

/** The ServiceError for a failed response whose parsed body (problem+json) is `parsed`. */
export function serviceError(response: Response, parsed: unknown): ServiceError {
  const problem = (parsed ?? {}) as { code?: string; detail?: string };
  return new ServiceError(
    response.status,
    problem.code ?? 'UNKNOWN',
    problem.detail ?? response.statusText,
    parsed,
  );
}

/** One JSON request, its response parsed with the same zod schema the service answers with. */
export async function requestJson<T extends z.ZodType>(
  options: ClientOptions,
  path: string,
  schema: T,
  request: RequestOptions = {},
): Promise<z.output<T>> {
  const url = serviceUrl(options, path, request.query);
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
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw serviceError(response, parsed);
  return schema.parse(parsed);
}
