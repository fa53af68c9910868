import { z } from 'zod';
import { commonProblems, type ProblemDef } from '@nrp/validation';
import type { RouteDefinition } from './route';

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Markdown; where the service writes down the choices the contract left open. */
  description?: string;
}

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

function parameters(location: 'path' | 'query', schema: z.ZodType | undefined): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(objectShape(schema)).map(([name, property]) => {
    const propertySchema = jsonSchema(property, 'input');
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

function problemResponses(route: RouteDefinition): Record<string, JsonSchema> {
  const defs: ProblemDef[] = [...(route.problems ?? [])];
  const hasInput = route.params || route.query || route.body;
  if (hasInput) defs.push(commonProblems.INVALID_INPUT);
  if (route.rateLimit) defs.push(commonProblems.RATE_LIMITED);
  const byStatus = new Map<number, ProblemDef[]>();
  for (const def of defs) byStatus.set(def.status, [...(byStatus.get(def.status) ?? []), def]);
  const out: Record<string, JsonSchema> = {};
  for (const [status, group] of byStatus) {
    const codes = [...new Set(group.map((d) => d.code))];
    out[String(status)] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return out;
}

export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function buildOpenApi(
  info: OpenApiInfo,
  routes: RouteDefinition[],
  problems: ProblemDef[],
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const responses: Record<string, JsonSchema> = problemResponses(route);
    for (const [status, spec] of Object.entries(route.responses)) {
      const contentType = spec.contentType ?? 'application/json';
      responses[status] = {
        description: spec.description,
        ...(spec.schema || spec.contentType
          ? { content: { [contentType]: spec.schema ? { schema: jsonSchema(spec.schema, 'output') } : {} } }
          : {}),
      };
    }
    const operation: JsonSchema = {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.tags ? { tags: route.tags } : {}),
      parameters: [...parameters('path', route.params), ...parameters('query', route.query)],
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: {
          [route.bodyContentType ?? 'application/json']: { schema: jsonSchema(route.body, 'input') },
        },
      };
    }
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas: { Problem: problemSchema },
      'x-problem-codes': Object.fromEntries(
        problems.map((p) => [p.code, { status: p.status, title: p.title, hint: p.hint }]),
      ),
    },
  };
}
