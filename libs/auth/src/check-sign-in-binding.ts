import { ProblemError } from '@nrp/validation';
import type { SignInMessage } from './parse-sign-in-message';
import { authProblems } from './problems';

/** What one signed request acts on, for messages that bind themselves to one thing. */
export interface SignInBinding {
  /** The URL of what the request acts on, e.g. `https://meta.example/profile/sepolia/demo.eth/avatar`. */
  resource: string;
  /** The request's operation as one lower-case word, e.g. `upload`. */
  operation: string;
  /** Every operation of such requests, e.g. `upload` and `delete`: a statement naming one of them names its operation. */
  operations: readonly string[];
  /** The URL prefix of this service's bindable resources, e.g. `https://meta.example/profile/`: a URI under it binds. */
  namespace: string;
}

const OPERATION = /^[a-z]+$/;

interface ParsedUrl {
  /** Origin, decoded path without a trailing slash, and query: what two URLs of one resource share. */
  target: string;
  /** The fragment without `#`, lower-case; '' when there is none. */
  fragment: string;
}

function parseUrl(value: string): ParsedUrl | undefined {
  try {
    const url = new URL(value);
    const path = decodeURIComponent(url.pathname).replace(/\/+$/, '');
    return { target: `${url.origin}${path}${url.search}`, fragment: url.hash.slice(1).toLowerCase() };
  } catch {
    return undefined;
  }
}

function mismatch(detail: string): never {
  throw new ProblemError(authProblems.RESOURCE_MISMATCH, detail);
}

/**
 * The message's own binding, checked against the request it is used for. A message without `Resources` whose URI is
 * not under `binding.namespace` binds nothing (the contract's message layout has no resources) and passes. Otherwise:
 * a URI under the namespace must be the request's resource; when `Resources` are listed, one of them must be the
 * request's resource and none may be another resource under the namespace; a `#operation` fragment on the URI or a
 * resource, and a statement naming any of `binding.operations`, must name the request's operation. Throws the 401
 * RESOURCE_MISMATCH otherwise.
 */
export function checkSignInBinding(message: SignInMessage, binding: SignInBinding): void {
  const expected = parseUrl(binding.resource);
  const namespace = parseUrl(binding.namespace);
  if (!expected || !namespace) throw new RangeError('the binding needs absolute resource and namespace URLs');
  if (
    !binding.operations.includes(binding.operation) ||
    !binding.operations.every((op) => OPERATION.test(op))
  ) {
    throw new RangeError('binding operations are lower-case words and include the operation');
  }
  const underNamespace = (url: ParsedUrl) => `${url.target}/`.startsWith(`${namespace.target}/`);
  const sameResource = (url: ParsedUrl) => url.target === expected.target;
  const checkOperation = (url: ParsedUrl, field: string) => {
    if (url.fragment !== '' && url.fragment !== binding.operation) {
      mismatch(`The message's ${field} names the operation "${url.fragment}", not "${binding.operation}".`);
    }
  };

  const uri = parseUrl(message.uri);
  const resources = message.resources ?? [];
  const uriBinds = uri !== undefined && underNamespace(uri);
  if (!uriBinds && resources.length === 0) return;

  if (uri && uriBinds) {
    if (!sameResource(uri)) mismatch(`The message's URI ${message.uri} is not ${binding.resource}.`);
    checkOperation(uri, 'URI');
  }
  if (resources.length > 0) {
    let named = false;
    for (const resource of resources) {
      const url = parseUrl(resource);
      if (!url) continue;
      if (sameResource(url)) {
        checkOperation(url, 'resource');
        named = true;
      } else if (underNamespace(url)) {
        mismatch(`The message's resource ${resource} is not ${binding.resource}.`);
      }
    }
    if (!named) mismatch(`The message's resources do not name ${binding.resource}.`);
  }
  const statement = message.statement?.toLowerCase() ?? '';
  const mentions = binding.operations.filter((op) => new RegExp(`\\b${op}\\b`).test(statement));
  if (mentions.length > 0 && !mentions.includes(binding.operation)) {
    mismatch(`The message's statement is for "${mentions.join('", "')}", not "${binding.operation}".`);
  }
}
