import { execFile } from 'node:child_process';
import path from 'node:path';

const checker = path.join(__dirname, '../scripts/check-openapi.ts');

/**
 * What swagger-parser, Redocly's recommended rules and openapi-typescript (with tsc) find wrong with an OpenAPI
 * document, one line per finding: an empty list is a clean document.
 */
export function openApiFindings(doc: unknown): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['-r', 'esbuild-register', checker],
      { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as string[]);
      },
    );
    child.stdin?.end(JSON.stringify(doc));
  });
}

interface OpenApiOperation {
  responses?: Record<string, { 'x-problem-codes'?: string[] }>;
}

/** Every problem code each operation of the document says it can answer. */
export function documentedProblemCodes(doc: { paths: Record<string, Record<string, OpenApiOperation>> }) {
  const codes = new Set<string>();
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const code of response['x-problem-codes'] ?? []) codes.add(code);
      }
    }
  }
  return codes;
}
