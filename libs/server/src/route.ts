import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ProblemDef } from '@nrp/validation';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RateLimitSpec {
  /** Unique per service: it names the Redis key prefix, and routes naming the same limit share its counters. */
  name: string;
  windowMs: number;
  limit: number;
  /** Requests this limit does not count, e.g. all but the ones that bypass a cache. */
  skip?: (req: Request) => boolean;
  /** What a counter counts; default: the client IP. A constant makes one ceiling for every client. */
  key?: (req: Request) => string;
  /**
   * This limit replaces the per-IP global limit on the route, for routes that shared infrastructure calls on
   * behalf of many users (a batch gateway in front of a CCIP-Read gateway arrives from a few addresses).
   */
  replacesGlobal?: boolean;
}

/** No answer of any route is larger: a page that would exceed it ends early with its cursor. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * A problem answer (4xx, 5xx) may be this large whatever the route's answer budget, which bounds its success
 * answers: a problem echoes at most MAX_FIELD_ERRORS fields, each cut to PROBLEM_ECHO_LIMITS, so it fits.
 */
export const MAX_PROBLEM_BYTES = 64 * 1024;

/** A pool of expensive work (image decoding, rendering, signing, big queries) that runs at most `limit` at once. */
export interface ConcurrencySpec {
  /** Unique per service: routes naming the same pool share its slots. */
  name: string;
  /** Requests of this pool in flight at once in one process; one more is answered 503 with `Retry-After`. */
  limit: number;
}

/**
 * What one request of a route may cost, enforced by the kit and written into the route's OpenAPI description: a
 * larger body is a 413 before it is read, an answer that is not started in time a 503, a full pool a fast 503.
 */
export interface RouteBudget {
  /** The largest request body in bytes (JSON or multipart); 0 for a route that takes none. */
  bodyBytes: number;
  /**
   * The largest answer in bytes, at most MAX_ANSWER_BYTES; `stream` for an answer streamed from stored data in
   * pages bounded in bytes (constant memory whatever its length).
   */
  answerBytes: number | 'stream';
  /** Milliseconds from the request's headers to the start of its answer; later, a 503 TIME_BUDGET_EXCEEDED. */
  timeMs: number;
  /** For expensive work: the pool whose slot the request holds from its headers to the end of its answer. */
  concurrency?: ConcurrencySpec;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** The input of every JSON schema a route documents for a success status (200, 201, 202). */
type SuccessBody<R> = {
  [K in keyof R]: K extends 200 | 201 | 202
    ? R[K] extends { schema: infer S extends z.ZodType }
      ? z.input<S>
      : never
    : never;
}[keyof R];

/**
 * What a handler may return: the input of a success schema (answered as JSON, with 200 or the success status the
 * handler set on `res`), or nothing (it answered on `res`).
 */
export type HandlerResult<R> = [SuccessBody<R>] extends [never] ? void : SuccessBody<R> | void;

export interface RouteInput<P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

/**
 * One route: its schemas validate the request, type the handler and generate the OpenAPI document.
 * A handler that returns a value answers it as JSON (200, or the success status it set with `res.status`); one that
 * returns nothing answers itself on `res`.
 */
export interface RouteDefinition<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
> {
  method: HttpMethod;
  /** Express path syntax: `/ens/v2/profile/:name`. */
  path: string;
  /** Unique in the service; the client method of the same operation has this name. */
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** Documents the body media type; `multipart/form-data` routes parse their body in `before`. */
  bodyContentType?: 'application/json' | 'multipart/form-data';
  /** By status; a 2xx JSON answer is checked against its schema where `checkResponses` is on (tests). */
  responses: R;
  /** Problems this route can answer, for the OpenAPI document and the catalogue at `/docs/errors`. */
  problems?: ProblemDef[];
  /**
   * The credential the route checks: an API key in `x-auth-token`, EIP-4361 sign-in fields in the body, the internal
   * ingest token, or a sign-in session's bearer token.
   */
  security?: 'apiKey' | 'signIn' | 'ingestToken' | 'session';
  rateLimit?: RateLimitSpec;
  /** What one request may cost (body, answer, time, concurrency); see `RouteBudget`. */
  budget: RouteBudget;
  /**
   * Middleware that runs before the body is read: the credential check (so a request without one is answered 401
   * as soon as its headers arrive), a multipart parser. What one works out for the handler (the verified key) it
   * hands over as a `RequestValue`.
   */
  before?: RequestHandler[];
  handler: (
    input: RouteInput<P, Q, B>,
    req: Request,
    res: Response,
  ) => HandlerResult<R> | Promise<HandlerResult<R>>;
}

/** Identity function that infers a route's types from its schemas: the handler returns what its 200 schema takes. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  const R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
>(route: RouteDefinition<P, Q, B, R>): RouteDefinition {
  return route as unknown as RouteDefinition;
}
