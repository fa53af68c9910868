import type { Request } from 'express';

const values = Symbol('request values');

declare module 'express-serve-static-core' {
  interface Request {
    /** What `RequestValue`s hold for this request; only this module reads or writes it. */
    [values]?: Map<RequestValue<unknown>, unknown>;
  }
}

/**
 * A value a route's `before` middleware works out for its handler (the verified API key, the signed-in session),
 * with its type: the middleware `set`s it, the handler reads it with `of`. It lives on the request, so it ends with
 * it. Reading one the route's middleware did not set is a programming error (a route missing its `before`), thrown
 * as such and answered 500, never mistaken for a client's missing credential.
 */
export class RequestValue<T> {
  /** `name` says what the value is and who sets it, for the error of a handler that reads it unset. */
  constructor(readonly name: string) {}

  set(req: Request, value: T): void {
    (req[values] ??= new Map()).set(this, value);
  }

  of(req: Request): T {
    const map = req[values];
    if (!map?.has(this)) {
      throw new Error(
        `${this.name} was not set for ${req.method} ${req.path}: the route's before does not set it`,
      );
    }
    // Only `set` writes under this key, and it takes a T.
    return map.get(this) as T;
  }
}
