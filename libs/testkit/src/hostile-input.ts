/**
 * Property-based hostile input for every route of a running service: requests generated from the routes' zod
 * schemas (through their JSON Schema), then mutated the way an attacker would (wrong types, huge and unicode
 * strings, `__proto__` keys, deep nesting, path traversal, `1e3`/`NaN`/`-0`, missing and extra fields, broken
 * bodies), sent over real HTTP. Each answer must be below 500, an error must be problem+json with its own status,
 * a 4xx must leave the service's state (`fingerprint`) as it was, and a member added to an object of a JSON body
 * whose schema has fixed members must be refused: a 4xx, and when it is a 400 its `errors` name that member.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { z } from 'zod';
import type { RouteDefinition } from '@nrp/server';
import { echoedPath } from '@nrp/validation';

type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  $defs?: Record<string, JsonSchema>;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One request, before it is encoded. `rawBody` replaces the JSON encoding of `body` (broken documents). */
interface HostileRequest {
  method: RouteDefinition['method'];
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: Json;
  rawBody?: string;
  /** Sent as multipart/form-data fields (routes whose body is multipart), with a file part of these bytes. */
  multipartFile?: Uint8Array;
  mutation: string;
  /** A member the body's schema does not know (`body.items.0.extra`): the answer must refuse it (400 naming it). */
  unknownField?: string;
}

export interface HostileFinding {
  operationId: string;
  mutation: string;
  request: string;
  status: number;
  problem: string;
  /** fast-check's seed of the route's run: `seed` in the target replays it. */
  seed: number;
}

export interface HostileTarget {
  /** Base URL of the running service. */
  url: string;
  routes: RouteDefinition[];
  /**
   * A digest of everything a request could write (database rows, stored blobs): compared before and after every
   * answer of 400 to 499. Use `databaseFingerprint`.
   */
  fingerprint: () => Promise<string>;
  /** Valid credential headers by the routes' `security` (an API key, the ingest token): sent with half the requests. */
  credentials?: Partial<Record<NonNullable<RouteDefinition['security']>, Record<string, string>>>;
  /** Known-good values of path parameters and body fields by name (`network: 'sepolia'`), mixed into generation. */
  knownValues?: Record<string, Json[]>;
  /**
   * fast-check runs per route (a request without an answer within 30 s is a finding); default HOSTILE_INPUT_RUNS
   * from the environment, else 25.
   */
  runsPerRoute?: number;
  seed?: number;
  /**
   * 5xx problems the deployment under test answers to a valid request by design, checked like a 4xx (problem+json,
   * nothing written) rather than reported: mint-svc's 503 MINT_CONTROLLER_NOT_CONFIGURED for a network the test
   * configures no controller on, which a generated `network` reaches.
   */
  refusalsByDesign?: readonly RefusalByDesign[];
}

export interface RefusalByDesign {
  status: number;
  code: string;
}

/** A refusal: a 4xx of whatever kind, or a 5xx problem the target lists as its deployment's answer by design. */
function isRefusal(answer: Answer, byDesign: readonly RefusalByDesign[] = []): boolean {
  if (answer.status >= 400 && answer.status < 500) return true;
  if (!byDesign.some(({ status }) => status === answer.status)) return false;
  try {
    const { code } = JSON.parse(answer.body) as { code?: unknown };
    return byDesign.some((refusal) => refusal.status === answer.status && refusal.code === code);
  } catch {
    return false;
  }
}

const MAX_ARRAY = 4;
/** Under Node's 16 KB header limit, so an overlong URL is a mutation of its own (see libs/server client-error). */
const MAX_URL_LENGTH = 12_000;

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  const id = ref.replace('#/$defs/', '');
  return root.$defs?.[id] ?? {};
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 2048);
    } catch {
      // A pattern fast-check cannot invert: fall back to plain strings.
    }
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 64, Math.max(minLength, 64));
  return fc.string({ minLength, maxLength });
}

/** Values that satisfy (most of) a JSON Schema; refinements zod could not express are left to the mutations. */
function valueOf(
  schema: JsonSchema,
  root: JsonSchema,
  known: Record<string, Json[]>,
  depth = 0,
): fc.Arbitrary<Json> {
  if (schema.$ref) return valueOf(resolveRef(root, schema.$ref), root, known, depth + 1);
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueOf(s, root, known, depth + 1)));
  if (schema.allOf?.length) return valueOf(schema.allOf[0] ?? {}, root, known, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1e6, Number.MIN_SAFE_INTEGER),
        max: Math.min(schema.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      if (schema.prefixItems)
        return fc.tuple(...schema.prefixItems.map((s) => valueOf(s, root, known, depth + 1)));
      return fc.array(valueOf(schema.items ?? {}, root, known, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, MAX_ARRAY),
        maxLength: Math.max(
          Math.min(schema.maxItems ?? MAX_ARRAY, MAX_ARRAY),
          Math.min(schema.minItems ?? 0, MAX_ARRAY),
        ),
      });
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const shape: Record<string, fc.Arbitrary<Json>> = {};
      for (const [key, property] of Object.entries(properties)) {
        const generated = valueOf(property, root, known, depth + 1);
        const good = known[key];
        shape[key] = good?.length
          ? fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 3 }, { arbitrary: generated, weight: 1 })
          : generated;
      }
      return fc.record(shape, {
        requiredKeys: [...required].filter((k) => k in shape),
      }) as fc.Arbitrary<Json>;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

function partOf(schema: z.ZodType | undefined, known: Record<string, Json[]>): fc.Arbitrary<Json> {
  if (!schema) return fc.constant({});
  const json = jsonSchemaOf(schema);
  return valueOf(json, json, known);
}

/**
 * Strings and numbers that break parsers, converters and file paths. Made when a run needs them: fast-check sets up
 * its binary strings in ~0.8 s, which every test file loading the test kit would otherwise pay.
 */
const hostileScalar = (): fc.Arbitrary<Json> =>
  fc.oneof(
    fc.constantFrom<Json>(
      '1e3',
      '1.5',
      '-0',
      'NaN',
      'Infinity',
      '-1',
      '0x10',
      'AAAA',
      '',
      ' ',
      'null',
      'true',
      '__proto__',
      'constructor',
      '../../../../etc/passwd',
      '..%2f..%2f..%2fetc%2fpasswd',
      '..\\..\\windows\\win.ini',
      '/dev/zero',
      '%00',
      '\u0000',
      '\u202e\u0041\u0042',
      '\ud83d\ude00\u200d\ud83d\udc69',
      '\ufeffdemo.eth',
      'ǅemo.eth',
      'x'.repeat(70_000),
      '9'.repeat(400),
      "'; DROP TABLE x; --",
      '{"$gt":""}',
      '<script>alert(1)</script>',
      -0,
      1e308,
      -1e308,
      2 ** 53 + 1,
      -1,
      0.1,
      1e3,
      true,
      false,
      null,
      [],
      {},
    ),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 3000, maxLength: 5000 }),
    fc.integer(),
    fc.double(),
  );

/** The members the `pollute` mutation tries to put on a prototype. */
const POLLUTION_MARKERS = ['polluted', 'isAdmin'];

/** Members attackers add to confuse merges and lookups (`pollute` adds the prototype payloads). */
const hostileMember = (): fc.Arbitrary<[string, Json]> =>
  fc.tuple(
    fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'extra',
    ),
    hostileScalar(),
  );

function deepNesting(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Sets `obj[key]` as an own member even for `__proto__`. */
function withMember(obj: { [key: string]: Json }, key: string, value: Json): { [key: string]: Json } {
  const copy: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(obj))
    Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

function replaceAt(value: Json, path: Array<string | number>, replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(head, 1);
    else copy[head] = replaceAt(copy[head] ?? null, rest, replacement);
    return copy;
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && head !== undefined) {
    const key = String(head);
    const copy = withMember(value, key, null);
    if (rest.length === 0 && replacement === undefined) {
      delete copy[key];
      return copy;
    }
    return withMember(copy, key, replaceAt(value[key] ?? null, rest, replacement));
  }
  return value;
}

type Part = 'params' | 'query' | 'body';
interface Parts {
  params: Json;
  query: Json;
  body: Json;
}

/** The request parts a route validates; a route without schemas still gets a (mutated) query. */
function partsOf(route: RouteDefinition): Part[] {
  const parts = (['params', 'query', 'body'] as const).filter((p) => route[p] !== undefined);
  return parts.length > 0 ? parts : ['query'];
}

const BODY_MUTATIONS = new Set(['deepNesting', 'rawNumber', 'brokenJson', 'wrongContentType']);

/** Mutations that change something this route reads: body and query ones only where the route reads them. */
function mutationsFor(route: RouteDefinition): string[] {
  return Object.keys(mutations).filter(
    (name) =>
      (route.body !== undefined || !BODY_MUTATIONS.has(name)) &&
      (route.query !== undefined || name !== 'duplicateQuery'),
  );
}

/** A mutation of a generated request: its name, and the change. */
type Mutation = (
  parts: Parts,
  pick: { part: Part; index: number; scalar: Json; member: [string, Json] },
) => {
  parts: Parts;
  rawBody?: string;
  contentType?: string;
  /** Repeats the query parameter at this index (modulo the count). */
  duplicateQuery?: number;
  /** The member a mutation added, and the path of the object it was added to. */
  added?: { part: Part; path: Array<string | number>; key: string };
  note: string;
};

function pathIn(parts: Parts, part: Part, index: number): Array<string | number> {
  const paths = pathsOf(parts[part]).filter((p) => p.length > 0);
  return paths[index % Math.max(paths.length, 1)] ?? [];
}

/** `parts` with `member` added to one of the objects of a request part (`index` picks which). */
function addMember(
  parts: Parts,
  { part, index }: { part: Part; index: number },
  member: [string, Json],
): ReturnType<Mutation> {
  const objectPaths = pathsOf(parts[part]).filter((p) => {
    let v: Json = parts[part];
    for (const k of p) v = (v as Record<string, Json>)[k as string] ?? null;
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  });
  const path = objectPaths[index % Math.max(objectPaths.length, 1)] ?? [];
  let target: Json = parts[part];
  for (const k of path) target = (target as Record<string, Json>)[k as string] ?? null;
  const base = target && typeof target === 'object' && !Array.isArray(target) ? target : {};
  return {
    parts: { ...parts, [part]: replaceAt(parts[part], path, withMember(base, member[0], member[1])) },
    added: { part, path, key: member[0] },
    note: `${part}.${[...path, member[0]].join('.')}`,
  };
}

/** The schemas a value at `path` may have been generated from (references and unions expanded). */
function schemasAt(schema: JsonSchema, root: JsonSchema, path: Array<string | number>): JsonSchema[] {
  const expand = (s: JsonSchema, depth = 0): JsonSchema[] => {
    if (depth > 8) return [];
    if (s.$ref) return expand(resolveRef(root, s.$ref), depth + 1);
    const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
    return alternatives.length > 0 ? alternatives.flatMap((a) => expand(a, depth + 1)) : [s];
  };
  let current = expand(schema);
  for (const step of path) {
    current = current.flatMap((s) => {
      const child =
        typeof step === 'number'
          ? (s.prefixItems?.[step] ?? s.items)
          : (s.properties?.[step] ??
            (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined));
      return child ? expand(child) : [];
    });
  }
  return current;
}

/**
 * Whether `key` is unknown to every object schema the value at `path` may have: an object of fixed members
 * (a record or a loose object takes any key). A plain `z.object`, which drops unknown keys silently, counts as
 * fixed: the platform's bodies are strict, so that is what the check is for.
 */
function unknownMember(schema: JsonSchema, path: Array<string | number>, key: string): boolean {
  const objects = schemasAt(schema, schema, path).filter(
    (s) => s.type === 'object' || s.properties !== undefined,
  );
  return (
    objects.length > 0 &&
    objects.every(
      (s) =>
        (s.additionalProperties === undefined || s.additionalProperties === false) &&
        !Object.hasOwn(s.properties ?? {}, key),
    )
  );
}

const mutations: Record<string, Mutation> = {
  none: (parts) => ({ parts, note: '' }),
  replaceValue: (parts, { part, index, scalar }) => {
    const path = pathIn(parts, part, index);
    return {
      parts: { ...parts, [part]: replaceAt(parts[part], path, scalar) },
      note: `${part}.${path.join('.')}`,
    };
  },
  dropField: (parts, { part, index }) => {
    const path = pathIn(parts, part, index);
    return {
      parts: { ...parts, [part]: replaceAt(parts[part], path, undefined) },
      note: `${part}.${path.join('.')}`,
    };
  },
  addMember: (parts, pick) => addMember(parts, pick, pick.member),
  // The two classic prototype pollution payloads, where any merge of the request would meet them.
  pollute: (parts, pick) =>
    addMember(
      parts,
      pick,
      pick.index % 2 === 0
        ? ['__proto__', { polluted: true, isAdmin: true }]
        : ['constructor', { prototype: { polluted: true, isAdmin: true } }],
    ),
  deepNesting: (parts, { index }) => {
    const path = pathIn(parts, 'body', index);
    const marker = '"__DEEP__"';
    const json = JSON.stringify(replaceAt(parts.body, path, '__DEEP__'));
    return { parts, rawBody: json.replace(marker, deepNesting(10_000)), note: `body.${path.join('.')}` };
  },
  rawNumber: (parts, { index }) => {
    const path = pathIn(parts, 'body', index);
    const json = JSON.stringify(replaceAt(parts.body, path, '__NUM__'));
    const raw = ['NaN', '-0', '1e3', '1E400', '-Infinity', '0x10', '01', '.5'][index % 8] ?? 'NaN';
    return { parts, rawBody: json.replace('"__NUM__"', raw), note: `body.${path.join('.')}=${raw}` };
  },
  brokenJson: (parts, { index }) => {
    const bodies = [
      '{',
      '{"a":',
      'nul',
      '[1,]',
      '\u0000',
      '"just a string"',
      '123',
      'null',
      '[]',
      '{"a":1}{"b":2}',
    ];
    return { parts, rawBody: bodies[index % bodies.length], note: 'broken document' };
  },
  // Express's simple query parser makes `a=1&a=2` an array and keeps `a[b]` as a key: the handler sees both.
  duplicateQuery: (parts, { index }) => ({ parts, duplicateQuery: index, note: 'query' }),
  wrongContentType: (parts, { index }) => {
    const types = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      'application/xml',
      'multipart/form-data; boundary=x',
    ];
    return { parts, contentType: types[index % types.length], note: 'content type' };
  },
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate included) except the bytes `keep` matches. */
function percentEncode(text: string, keep: RegExp): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && keep.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function encodePathValue(value: Json, mutation: string): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // Traversal reaches the path unescaped, as a proxy or a careless client sends it: `/`, `.` and `%` stay.
  if (mutation === 'replaceValue' && /\.\.|\/|%/.test(text) && text.length < 200) {
    return percentEncode(text, /[\x21-\x7e]/);
  }
  return percentEncode(text, UNRESERVED);
}

function queryPairs(query: Json, duplicate: number | undefined): Array<[string, string]> {
  if (!query || typeof query !== 'object' || Array.isArray(query)) return [['q', JSON.stringify(query)]];
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(query)) {
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) pairs.push([k, typeof item === 'string' ? item : JSON.stringify(item)]);
  }
  const keys = Object.keys(query);
  const repeated = duplicate === undefined ? undefined : (keys[duplicate % Math.max(keys.length, 1)] ?? 'q');
  if (repeated !== undefined) pairs.push([repeated, 'duplicate'], [`${repeated}[a]`, 'b']);
  return pairs;
}

function requestFor(
  route: RouteDefinition,
  mutated: ReturnType<Mutation>,
  mutation: string,
  headers: Record<string, string>,
  file: Uint8Array,
): HostileRequest {
  const params = mutated.parts.params;
  const path = route.path.replace(/:(\w+)/g, (_m, name: string) => {
    const value = params && typeof params === 'object' && !Array.isArray(params) ? params[name] : undefined;
    return value === undefined ? '' : encodePathValue(value, mutation);
  });
  const multipart = route.bodyContentType === 'multipart/form-data';
  const { added } = mutated;
  const unknownField =
    added?.part === 'body' &&
    route.body !== undefined &&
    !multipart &&
    unknownMember(jsonSchemaOf(route.body), added.path, added.key)
      ? ['body', ...added.path, added.key].join('.')
      : undefined;
  return {
    method: route.method,
    path,
    query: queryPairs(mutated.parts.query, mutated.duplicateQuery),
    headers: { ...headers, ...(mutated.contentType ? { 'content-type': mutated.contentType } : {}) },
    ...(route.body !== undefined ? { body: mutated.parts.body } : {}),
    ...(mutated.rawBody !== undefined ? { rawBody: mutated.rawBody } : {}),
    ...(multipart ? { multipartFile: file } : {}),
    ...(unknownField ? { unknownField } : {}),
    mutation: `${mutation}${mutated.note ? ` ${mutated.note}` : ''}`,
  };
}

function multipartBody(fields: Json, file: Uint8Array | undefined, boundary: string): Buffer {
  const chunks: Buffer[] = [];
  const entries =
    fields && typeof fields === 'object' && !Array.isArray(fields)
      ? Object.entries(fields)
      : [['fields', fields] as const];
  for (const [name, value] of entries) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22')}"\r\n\r\n${text}\r\n`,
      ),
    );
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../../x.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      Buffer.from(file),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends the request with node:http, so the path reaches the server exactly as built (no URL normalisation). */
function sendHostileRequest(baseUrl: string, req: HostileRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  const search = req.query.length
    ? `?${req.query.map(([k, v]) => `${percentEncode(k, UNRESERVED)}=${percentEncode(v, UNRESERVED)}`).join('&')}`
    : '';
  const target = `${req.path}${search}`.slice(0, MAX_URL_LENGTH);
  const headers: Record<string, string> = { ...req.headers };
  let payload: Buffer | undefined;
  if (req.multipartFile) {
    const boundary = 'hostile-boundary-7e3f';
    payload = multipartBody(req.body ?? null, req.multipartFile, boundary);
    headers['content-type'] ??= `multipart/form-data; boundary=${boundary}`;
  } else if (req.rawBody !== undefined || req.body !== undefined) {
    payload = Buffer.from(req.rawBody ?? JSON.stringify(req.body));
    headers['content-type'] ??= 'application/json';
  }
  if (payload) headers['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method.toUpperCase(),
        path: target,
        headers,
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within 30 s: ${req.method} ${target}`)),
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/**
 * What a request put on Object.prototype, removed at once (it would break the next request's code): the service
 * runs in this process, as the tests start it, so a merge that followed `__proto__` shows up here.
 */
function pollution(): string | undefined {
  const polluted = POLLUTION_MARKERS.filter((key) => Object.hasOwn(Object.prototype, key));
  for (const key of polluted) delete (Object.prototype as Record<string, unknown>)[key];
  return polluted.length > 0 ? `Object.prototype gained ${polluted.join(', ')}` : undefined;
}

/** An error's message; node:http's errors come from another realm under jest, so not `instanceof Error`. */
function messageOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
}

/** Why an answer breaks the rules, or undefined when it keeps them. */
function violation(
  answer: Answer,
  stateChanged: boolean,
  unknownField?: string,
  byDesign?: readonly RefusalByDesign[],
): string | undefined {
  if (answer.status >= 500 && !isRefusal(answer, byDesign))
    return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status < 400) return unknownField ? `accepted the unknown field ${unknownField}` : undefined;
  if (!answer.contentType.startsWith('application/problem+json'))
    return `error with content type "${answer.contentType}"`;
  let body: { status?: unknown; code?: unknown; errors?: unknown };
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return 'problem+json body does not parse';
  }
  if (body.status !== answer.status || typeof body.code !== 'string')
    return `problem body ${answer.body.slice(0, 200)}`;
  if (stateChanged) return `a ${answer.status} (${body.code}) changed the stored state`;
  // A 400 about the request's fields lists them all (401, 413, 415, 429 come before the schemas and say so).
  if (unknownField && answer.status === 400) {
    const echoed = echoedPath(unknownField);
    const named =
      Array.isArray(body.errors) &&
      body.errors.some((e: unknown) => (e as { path?: unknown } | null)?.path === echoed);
    if (!named)
      return `a 400 that does not name the unknown field ${unknownField}: ${answer.body.slice(0, 300)}`;
  }
  return undefined;
}

function describe(req: HostileRequest): string {
  const body = req.rawBody ?? (req.body === undefined ? '' : JSON.stringify(req.body));
  return `${req.method.toUpperCase()} ${req.path.slice(0, 200)} ${JSON.stringify(req.query).slice(0, 200)} ${body.slice(0, 300)}`;
}

/** The name of the unknown member of the long-name probe: 1,000 characters. */
const LONG_FIELD_NAME = 'x'.repeat(1000);

/**
 * One request per object of a generated JSON body that has fixed members, with an unknown member `extra` added
 * there and the route's credential sent, so every such body of every route is checked whatever fast-check draws;
 * and one with a member named 1,000 characters at the body's root.
 */
function unknownFieldProbes(
  route: RouteDefinition,
  known: Record<string, Json[]>,
  headers: Record<string, string>,
  seed: number | undefined,
): HostileRequest[] {
  if (route.body === undefined || route.bodyContentType === 'multipart/form-data') return [];
  const [parts] = fc.sample(
    fc.record({
      params: partOf(route.params, known),
      query: partOf(route.query, known),
      body: partOf(route.body, known),
    }),
    { numRuns: 1, ...(seed === undefined ? {} : { seed }) },
  );
  if (!parts) return [];
  const extras = pathsOf(parts.body)
    .map((_path, index) => addMember(parts, { part: 'body', index }, ['extra', 1]))
    .filter((mutated, index, all) => all.findIndex((m) => m.note === mutated.note) === index)
    .slice(0, 8);
  // A name far longer than any answer budget allows to echo: the 400 must name it cut, never outgrow its route.
  const longName = addMember(parts, { part: 'body', index: 0 }, [LONG_FIELD_NAME, 1]);
  return [...extras, longName]
    .map((mutated) => requestFor(route, mutated, 'unknownField', headers, new Uint8Array()))
    .filter((req) => req.unknownField !== undefined);
}

/** The first probe whose answer breaks the rules (the state is compared as for generated requests). */
async function firstProbeFinding(
  target: HostileTarget,
  probes: HostileRequest[],
): Promise<Omit<HostileFinding, 'operationId' | 'seed'> | undefined> {
  for (const req of probes) {
    const before = await target.fingerprint();
    let answer: Answer;
    try {
      answer = await sendHostileRequest(target.url, req);
    } catch (err) {
      return {
        mutation: req.mutation,
        request: describe(req),
        status: 0,
        problem: `no answer: ${messageOf(err)}`,
      };
    }
    const changed = isRefusal(answer, target.refusalsByDesign) && (await target.fingerprint()) !== before;
    const problem = violation(answer, changed, req.unknownField, target.refusalsByDesign) ?? pollution();
    if (problem) return { mutation: req.mutation, request: describe(req), status: answer.status, problem };
  }
  return undefined;
}

/**
 * Runs the properties over every route and returns what broke them (at most one finding per route: fast-check
 * shrinks it to a small counterexample). An empty list means every route held.
 */
export async function hostileInputFindings(target: HostileTarget): Promise<HostileFinding[]> {
  const findings: HostileFinding[] = [];
  const known = target.knownValues ?? {};
  for (const route of target.routes) {
    const credential = (route.security ? target.credentials?.[route.security] : undefined) ?? {};
    const probes = unknownFieldProbes(route, known, credential, target.seed);
    const probeFinding = await firstProbeFinding(target, probes);
    if (probeFinding) {
      findings.push({ operationId: route.operationId, seed: target.seed ?? 0, ...probeFinding });
      continue;
    }
    const request = fc
      .record({
        params: partOf(route.params, known),
        query: partOf(route.query, known),
        body: partOf(route.body, known),
      })
      .chain((parts) =>
        fc
          .record({
            mutation: fc.constantFrom(...mutationsFor(route)),
            part: fc.constantFrom<Part>(...partsOf(route)),
            index: fc.nat(),
            scalar: hostileScalar(),
            member: hostileMember(),
            authenticated: fc.boolean(),
            file: fc.uint8Array({ maxLength: 64 }),
          })
          .map((pick) => {
            const mutated = mutations[pick.mutation]?.(parts, pick) ?? { parts, note: '' };
            const credential = route.security ? target.credentials?.[route.security] : undefined;
            const headers = pick.authenticated ? (credential ?? {}) : {};
            return requestFor(route, mutated, pick.mutation, headers, pick.file);
          }),
      );
    let last: { req: HostileRequest; status: number; problem: string } | undefined;
    // The state before a request: unchanged after a 4xx that kept the rules, read again after anything else.
    let before: string | undefined;
    const result = await fc.check(
      fc.asyncProperty(request, async (req) => {
        before ??= await target.fingerprint();
        let answer: Answer;
        try {
          answer = await sendHostileRequest(target.url, req);
        } catch (err) {
          // A reset, a closed connection or no answer in time: the request broke something.
          last = {
            req,
            status: 0,
            problem: `no answer: ${messageOf(err)}`,
          };
          return false;
        }
        const refused = isRefusal(answer, target.refusalsByDesign);
        const changed = refused && (await target.fingerprint()) !== before;
        if (!refused || changed) before = undefined;
        const problem = violation(answer, changed, req.unknownField, target.refusalsByDesign) ?? pollution();
        if (problem) last = { req, status: answer.status, problem };
        return problem === undefined;
      }),
      {
        numRuns: target.runsPerRoute ?? (Number(process.env.HOSTILE_INPUT_RUNS) || 25),
        seed: target.seed,
        endOnFailure: true,
        maxSkipsPerRun: 1,
      },
    );
    if (result.failed && last) {
      findings.push({
        operationId: route.operationId,
        mutation: last.req.mutation,
        request: describe(last.req),
        status: last.status,
        problem: last.problem,
        seed: result.seed,
      });
    }
  }
  return findings;
}

/** A request of a route that takes a cursor, valid but for its `cursor`. */
export interface CursorRequest {
  /** The path, its parameters filled in (`/api/v1/webhooks/<id>/deliveries`). */
  path: string;
  /** The other query parameters; the cursor goes here unless the route has a body. */
  query?: Record<string, string>;
  /** The route's JSON body without `cursor`: the cursor goes into it. */
  body?: { [key: string]: Json };
  headers?: Record<string, string>;
  /** A position of the route's cursors (decoded): strings of it with a U+0000 put in make near-valid cursors. */
  position: { [key: string]: Json };
}

function base64url(bytes: Uint8Array | string): string {
  return Buffer.from(bytes).toString('base64url');
}

/** `position` with a NUL put into each of its strings at `at` (modulo its length). */
function withNul(position: { [key: string]: Json }, at: number): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(position)) {
    out[key] =
      typeof value === 'string'
        ? `${value.slice(0, at % (value.length + 1))}\u0000${value.slice(at % (value.length + 1))}`
        : value;
  }
  return out;
}

/**
 * Cursors no service issued: random bytes base64url-encoded (invalid UTF-8 among them), JSON of any shape, the
 * route's own position with a NUL in its strings or with a lone surrogate, and raw strings of any characters.
 */
function foreignCursor(position: { [key: string]: Json }): fc.Arbitrary<string> {
  return fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 300 }).map(base64url),
    fc.jsonValue().map((value) => base64url(JSON.stringify(value))),
    fc.nat().map((at) => base64url(JSON.stringify(withNul(position, at)))),
    fc
      .constantFrom('\ud800', '\udfff', '\u0000')
      .map((odd) =>
        base64url(
          JSON.stringify(
            Object.fromEntries(
              Object.entries(position).map(([k, v]) => [k, typeof v === 'string' ? odd : v]),
            ),
          ),
        ),
      ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 300 }).map((text) => base64url(text)),
  );
}

/**
 * Feeds cursors the service never issued (`foreignCursor`) to every route whose query or body has a `cursor`: each
 * must be a 400 problem+json and write nothing. `requests` holds one valid request per such route by operationId, or
 * why its cursor is not one the service issues (a label the client names): a route with a cursor missing from it is
 * a finding, so a new cursor route cannot go unchecked.
 */
export async function foreignCursorFindings(
  target: Pick<HostileTarget, 'url' | 'routes' | 'fingerprint' | 'runsPerRoute' | 'seed'>,
  requests: Record<string, CursorRequest | string>,
): Promise<Array<{ operationId: string; request: string; problem: string }>> {
  const findings: Array<{ operationId: string; request: string; problem: string }> = [];
  const takesCursor = (schema: z.ZodType | undefined) =>
    schema !== undefined && Object.hasOwn(jsonSchemaOf(schema).properties ?? {}, 'cursor');
  for (const route of target.routes.filter((r) => takesCursor(r.query) || takesCursor(r.body))) {
    const valid = requests[route.operationId];
    if (typeof valid === 'string') continue;
    if (!valid) {
      findings.push({ operationId: route.operationId, request: route.path, problem: 'no request to probe' });
      continue;
    }
    const inBody = takesCursor(route.body);
    let last: { request: string; problem: string } | undefined;
    const result = await fc.check(
      fc.asyncProperty(foreignCursor(valid.position), async (cursor) => {
        const req: HostileRequest = {
          method: route.method,
          path: valid.path,
          query: [
            ...Object.entries(valid.query ?? {}),
            ...(inBody ? [] : [['cursor', cursor] as [string, string]]),
          ],
          headers: valid.headers ?? {},
          ...(inBody ? { body: { ...valid.body, cursor } } : {}),
          mutation: 'foreignCursor',
        };
        const before = await target.fingerprint();
        const answer = await sendHostileRequest(target.url, req);
        const changed = (await target.fingerprint()) !== before;
        const problem =
          answer.status === 400
            ? violation(answer, changed)
            : `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
        if (problem) last = { request: `${describe(req)} cursor=${JSON.stringify(cursor)}`, problem };
        return problem === undefined;
      }),
      {
        numRuns: target.runsPerRoute ?? (Number(process.env.HOSTILE_INPUT_RUNS) || 100),
        seed: target.seed,
        endOnFailure: true,
      },
    );
    if (result.failed && last) findings.push({ operationId: route.operationId, ...last });
  }
  return findings;
}
