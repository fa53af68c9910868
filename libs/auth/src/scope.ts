/** A scope is one or more lower-case words joined by `+`, e.g. `avatar`, `header`, `avatar+header`, `listing`. */
const SCOPE_PART = /^[a-z][a-z0-9_-]{0,31}$/;

/** The parts of a scope, or undefined when it is not a well-formed scope. */
export function parseScope(scope: string): string[] | undefined {
  const parts = scope.split('+');
  return parts.every((part) => SCOPE_PART.test(part)) ? parts : undefined;
}

export function isValidScope(scope: string): boolean {
  return parseScope(scope) !== undefined;
}

/**
 * Whether a nonce granted for `granted` may authorise an operation of scope `requested`: every part of
 * `requested` must be a part of `granted` (`avatar+header` allows `avatar`, `header` and `avatar+header`).
 * Malformed scopes allow nothing.
 */
export function scopeAllows(granted: string, requested: string): boolean {
  const grantedParts = parseScope(granted);
  const requestedParts = parseScope(requested);
  if (!grantedParts || !requestedParts) return false;
  return requestedParts.every((part) => grantedParts.includes(part));
}
