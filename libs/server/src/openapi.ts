import { z } from 'zod';
import { commonProblems, MAX_FIELD_ERRORS, PROBLEM_ECHO_LIMITS, type ProblemDef } from '@nrp/validation';
import { budgetDescription } from './budget';
import { MAX_PROBLEM_BYTES, type RouteDefinition } from './route';

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Markdown; where the service writes down the choices the contract left open. */
  description?: string;
}

type JsonSchema = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** JSON Schema of a zod schema; schemas with a `meta({ id })` go to `named` and are referenced from components. */
function jsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  named: Record<string, JsonSchema>,
): JsonSchema {
  const {
    $schema: _ignored,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  // zod refers to named schemas as `#/$defs/<id>`, relative to its own output: point them at the components.
  const relocated = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(relocated);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/$defs/', SCHEMA_REF)
          : relocated(inner),
      ]),
    );
  };
  for (const [id, def] of Object.entries($defs ?? {})) {
    const { id: _id, ...definition } = relocated(def) as JsonSchema;
    named[id] = definition;
  }
  return relocated(rest) as JsonSchema;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

function parameters(
  location: 'path' | 'query',
  schema: z.ZodType | undefined,
  named: Record<string, JsonSchema>,
): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(objectShape(schema)).map(([name, property]) => {
    const propertySchema = jsonSchema(property, 'input', named);
    return {
      name,
      in: location,
      required: location === 'path' || !property.safeParse(undefined).success,
      ...(typeof propertySchema.description === 'string' ? { description: propertySchema.description } : {}),
      schema: propertySchema,
    };
  });
}

const problemSchema: JsonSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details; `code` is listed at `/docs/errors`. What a problem echoes of the request is cut, ' +
    `ending in \`…\`: a field's \`path\` to ${PROBLEM_ECHO_LIMITS.path} characters, its \`message\` to ` +
    `${PROBLEM_ECHO_LIMITS.message}, \`detail\` to ${PROBLEM_ECHO_LIMITS.detail}; \`errors\` lists at most ` +
    `${MAX_FIELD_ERRORS} fields. A problem answer is at most ${MAX_PROBLEM_BYTES / 1024} KB, whatever the ` +
    "route's answer budget (which bounds its success answers).",
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

const securitySchemes: Record<NonNullable<RouteDefinition['security']>, JsonSchema> = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-auth-token',
    description:
      'An API key for the parent names it may manage: issued by the operator, or by a signed-in address for a ' +
      'name it controls on chain (`POST /api/v1/keys`).',
  },
  signIn: {
    type: 'http',
    scheme: 'siwe',
    description:
      'Sign-In with Ethereum (EIP-4361), carried in the request body, not in a header: `siweMessage` (the ' +
      'message exactly as signed), `siweSignature` and `address`. The message holds a nonce from this ' +
      "service's nonce endpoint, one of its accepted domains and the network's chain id. Bind it to the " +
      'request: its URI and `Resources` name the resource the request changes, and its statement the ' +
      "operation (the client's sign-in message helper does).",
  },
  ingestToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The token the platform services share to relay their events (EVENTS_INGEST_TOKEN); internal, keep the ' +
      'path off the public ingress.',
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A sign-in session: the `token` of `POST /api/v1/auth/session` (an EIP-4361 message signed by the address), ' +
      'sent as `Authorization: Bearer <token>`. Opaque, stored hashed, expires (`expiresAt`); ' +
      '`DELETE /api/v1/auth/session` ends it.',
  },
};

/** The problems a route can answer: its own, invalid input when it takes input, and 429 (the global limit). */
export function routeProblems(route: RouteDefinition): ProblemDef[] {
  const defs: ProblemDef[] = [...(route.problems ?? [])];
  if (route.params || route.query || route.body) defs.push(commonProblems.INVALID_INPUT);
  defs.push(commonProblems.RATE_LIMITED);
  return [...new Map(defs.map((def) => [def.code, def])).values()];
}

/** The catalogue at `/docs/errors`: what any route can answer, then each route's own problems, once per code. */
export function problemCatalogue(routes: RouteDefinition[]): ProblemDef[] {
  const all = [...Object.values(commonProblems), ...routes.flatMap(routeProblems)];
  return [...new Map(all.map((def) => [def.code, def])).values()];
}

function problemResponses(route: RouteDefinition): Record<string, JsonSchema> {
  const byStatus = new Map<number, ProblemDef[]>();
  for (const def of routeProblems(route))
    byStatus.set(def.status, [...(byStatus.get(def.status) ?? []), def]);
  const out: Record<string, JsonSchema> = {};
  for (const [status, group] of byStatus) {
    const codes = group.map((d) => d.code);
    out[String(status)] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      'x-problem-codes': codes,
      content: { 'application/problem+json': { schema: { $ref: `${SCHEMA_REF}Problem` } } },
    };
  }
  return out;
}

export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function buildOpenApi(info: OpenApiInfo, routes: RouteDefinition[]): JsonSchema {
  const named: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const schemesUsed = new Set<NonNullable<RouteDefinition['security']>>();
  for (const route of routes) {
    const responses: Record<string, JsonSchema> = problemResponses(route);
    for (const [status, spec] of Object.entries(route.responses)) {
      const contentType = spec.contentType ?? 'application/json';
      responses[status] = {
        description: spec.description,
        ...(spec.schema || spec.contentType
          ? {
              content: {
                [contentType]: spec.schema ? { schema: jsonSchema(spec.schema, 'output', named) } : {},
              },
            }
          : {}),
      };
    }
    if (route.security) schemesUsed.add(route.security);
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, budgetDescription(route.budget)].filter(Boolean).join('\n\n'),
      'x-budget': route.budget,
      ...(route.tags ? { tags: route.tags } : {}),
      security: route.security ? [{ [route.security]: [] }] : [],
      parameters: [...parameters('path', route.params, named), ...parameters('query', route.query, named)],
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: {
          [route.bodyContentType ?? 'application/json']: { schema: jsonSchema(route.body, 'input', named) },
        },
      };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  const tags = [...new Set(routes.flatMap((route) => route.tags ?? []))].sort();
  return {
    openapi: '3.1.0',
    info: { ...info, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
    // Relative: the document describes the deployment that serves it, whatever its public URL.
    servers: [{ url: '/', description: 'The deployment serving this document' }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: { Problem: problemSchema, ...named },
      ...(schemesUsed.size > 0
        ? { securitySchemes: Object.fromEntries([...schemesUsed].sort().map((s) => [s, securitySchemes[s]])) }
        : {}),
      'x-problem-codes': Object.fromEntries(
        problemCatalogue(routes).map((p) => [p.code, { status: p.status, title: p.title, hint: p.hint }]),
      ),
    },
  };
}
