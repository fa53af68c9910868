/**
 * Reads an OpenAPI document on stdin and prints, as a JSON array of lines, everything real tools find wrong with
 * it: @apidevtools/swagger-parser's validation, Redocly's `recommended` lint rules (errors and warnings), whether
 * openapi-typescript's types of it compile, and raw HTML in a description (Swagger UI renders it: a `<style>`
 * swallows the rest of the text). A separate process: these tools are ES modules, which jest cannot load.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

async function validation(doc: object): Promise<string[]> {
  try {
    await SwaggerParser.validate(structuredClone(doc) as Parameters<typeof SwaggerParser.validate>[1]);
    return [];
  } catch (err) {
    return [`swagger-parser: ${err instanceof Error ? err.message : String(err)}`];
  }
}

async function lint(source: string): Promise<string[]> {
  const config = await createConfig({
    extends: ['recommended'],
    // Off: the tag names (images, listings, profiles, …) say what they group; the text is in the service's
    // description and in each operation.
    rules: { 'tag-description': 'off' },
  });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems
    .filter((p) => !p.ignored && (p.severity === 'error' || p.severity === 'warn'))
    .map((p) => `redocly ${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
}

async function generatedTypes(doc: object): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openapi-types-'));
  try {
    const file = path.join(dir, 'api.ts');
    writeFileSync(file, astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0])));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      types: [],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => `openapi-typescript output: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } catch (err) {
    return [`openapi-typescript: ${err instanceof Error ? err.message : String(err)}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function rawHtml(value: unknown, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => rawHtml(item, `${at}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = `${at}/${key}`;
    if (key === 'description' && typeof inner === 'string') {
      const outsideCode = inner.replace(/`[^`]*`/g, '');
      return /<[a-zA-Z!/]/.test(outsideCode) ? [`raw HTML in the markdown description at ${here}`] : [];
    }
    return rawHtml(inner, here);
  });
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const source = Buffer.concat(chunks).toString('utf8');
  const doc = JSON.parse(source) as object;
  const findings = [
    ...(await validation(doc)),
    ...(await lint(source)),
    ...(await generatedTypes(doc)),
    ...rawHtml(doc, '#'),
  ];
  process.stdout.write(JSON.stringify(findings));
}

void main();
