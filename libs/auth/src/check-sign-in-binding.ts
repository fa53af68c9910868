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
  /** The service's public base URL (`PUBLIC_BASE_URL`), e.g. `https://meta.example`: a URI under it binds. */
  serviceUrl: string;
}

/**
 * The sign-in binding rule of every service, as their OpenAPI descriptions and READMEs state it: what
 * checkSignInBinding enforces.
 */
export const SIGN_IN_BINDING_RULE =
  'A sign-in message that lists `Resources`, or whose URI is any URL of this service (under `PUBLIC_BASE_URL`), is ' +
  'bound: its URI (when it is a URL of this service) and one of its resources must be the URL of this request, no ' +
  'resource may be another URL of this service, and a statement or `#fragment` naming an operation must name this ' +
  "one; otherwise 401 `RESOURCE_MISMATCH` and the nonce stays unused. A message with neither (the contract's " +
  "layout: no `Resources`, a URI elsewhere, such as the dapp's page) is unbound: it authorises this operation on " +
  "any name its signer may act on, once, within its nonce's scope. Sign bound messages.";

const OPERATION = /^[a-z]+$/;

interface ParsedUrl {
  /** Origin, decoded path without a trailing slash, and query, after WHATWG URL normalisation. */
  target: string;
  /** The fragment without `#`, lower-case; '' when there is none. */
  fragment: string;
}

/**
 * A dot segment (`.`, `..`) or an encoded dot or slash (`%2e`, `%2f`, `%5c`) in the path: WHATWG URL normalisation
 * resolves `%2e%2e` like `..`, so `…/demo.eth/%2e%2e/wrapped.eth/avatar` reads as demo.eth and names wrapped.eth.
 */
const AMBIGUOUS_PATH = /%2e|%2f|%5c|[/\\]\.{1,2}(?=[/\\]|$)/i;

function pathOf(raw: string): string {
  const withoutQuery = raw.split(/[?#]/)[0] ?? '';
  const authority = /^[a-z][a-z0-9+.-]*:[/\\]{2}[^/\\]*/i.exec(withoutQuery)?.[0] ?? '';
  return withoutQuery.slice(authority.length);
}

/** The URL normalised (WHATWG), or undefined when it does not parse; `ambiguous` when its path must be refused. */
function parseUrl(value: string): ParsedUrl | 'ambiguous' | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (AMBIGUOUS_PATH.test(pathOf(value.trim()))) return 'ambiguous';
  let path: string;
  try {
    path = decodeURIComponent(url.pathname).replace(/\/+$/, '');
  } catch {
    return 'ambiguous';
  }
  return { target: `${url.origin}${path}${url.search}`, fragment: url.hash.slice(1).toLowerCase() };
}

function mismatch(detail: string): never {
  throw new ProblemError(authProblems.RESOURCE_MISMATCH, detail);
}

/**
 * The message's own binding, checked against the request it is used for. URIs are compared after WHATWG URL
 * normalisation, and a URI or resource whose path has dot segments or encoded dots or slashes is refused whatever
 * it names (it would read as one resource and name another). A message without `Resources` whose URI is
 * not under `binding.serviceUrl` binds nothing (the contract's message layout has no resources) and passes.
 * Otherwise: a URI of the service must be the request's resource; when `Resources` are listed, one of them must be the
 * request's resource and none may be another URL of the service; a `#operation` fragment on the URI or a
 * resource, and a statement naming any of `binding.operations`, must name the request's operation. Throws the 401
 * RESOURCE_MISMATCH otherwise.
 */
export function checkSignInBinding(message: SignInMessage, binding: SignInBinding): void {
  const expected = parseUrl(binding.resource);
  const service = parseUrl(binding.serviceUrl);
  if (typeof expected !== 'object' || typeof service !== 'object') {
    throw new RangeError('the binding needs absolute resource and service URLs without dot segments');
  }
  if (
    !binding.operations.includes(binding.operation) ||
    !binding.operations.every((op) => OPERATION.test(op))
  ) {
    throw new RangeError('binding operations are lower-case words and include the operation');
  }
  const ofService = (url: ParsedUrl) => `${url.target}/`.startsWith(`${service.target}/`);
  const sameResource = (url: ParsedUrl) => url.target === expected.target;
  const checkOperation = (url: ParsedUrl, field: string) => {
    if (url.fragment !== '' && url.fragment !== binding.operation) {
      mismatch(`The message's ${field} names the operation "${url.fragment}", not "${binding.operation}".`);
    }
  };
  const parsed = (value: string, field: string): ParsedUrl | undefined => {
    const url = parseUrl(value);
    if (url === 'ambiguous') {
      mismatch(
        `The message's ${field} ${value} has dot segments or encoded dots or slashes in its path: ` +
          'write the path as it is meant, without them.',
      );
    }
    return url;
  };

  const uri = parsed(message.uri, 'URI');
  const resources = (message.resources ?? []).map((resource) => ({
    resource,
    url: parsed(resource, 'resource'),
  }));
  const uriBinds = uri !== undefined && ofService(uri);
  if (!uriBinds && resources.length === 0) return;

  if (uri && uriBinds) {
    if (!sameResource(uri)) mismatch(`The message's URI ${message.uri} is not ${binding.resource}.`);
    checkOperation(uri, 'URI');
  }
  if (resources.length > 0) {
    let named = false;
    for (const { resource, url } of resources) {
      if (!url) continue;
      if (sameResource(url)) {
        checkOperation(url, 'resource');
        named = true;
      } else if (ofService(url)) {
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
