import { execFile } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';

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

type TestedApp = Parameters<typeof request>[0];

/**
 * The tests every service's shared endpoints pass, declared in the caller's `describe`: an unknown route is a
 * problem+json 404; `/openapi.json` validates, lints clean and compiles, with exactly `securitySchemes`; `/docs/errors`
 * lists every problem a route answers, and every code in `definedProblemCodes` is answered by some route.
 */
export function itDocumentsItself(
  app: () => TestedApp,
  expected: { securitySchemes: string[]; definedProblemCodes: string[] },
): void {
  it('an unknown route is a problem+json 404', async () => {
    const res = await request(app()).get('/no/such/route').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('/openapi.json validates, lints clean under Redocly recommended, and its generated types compile', async () => {
    const doc = (await request(app()).get('/openapi.json').expect(200)).body;
    expect(await openApiFindings(doc)).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual(expected.securitySchemes);
  });

  it('/docs/errors lists every problem a route answers, and every problem the service defines is answered', async () => {
    const doc = (await request(app()).get('/openapi.json').expect(200)).body;
    const catalogue = (await request(app()).get('/docs/errors').expect(200)).body.problems.map(
      (p: { code: string }) => p.code,
    );
    const answered = documentedProblemCodes(doc);
    expect([...answered].filter((code) => !catalogue.includes(code))).toEqual([]);
    expect(expected.definedProblemCodes.filter((code) => !answered.has(code))).toEqual([]);
  });
}
