// Validates Kubernetes objects against the Kubernetes API schemas of the npm package kubernetes-models.
// Reads a JSON array of objects on stdin, prints a JSON array of problems ([] when all are valid).
// A separate process for k8s/overlays.test.ts: kubernetes-models is ESM-only and jest runs CommonJS.
import { readFileSync } from 'node:fs';

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const object of objects) {
  const name = `${object.kind}/${object.metadata?.name}`;
  let Model;
  try {
    ({ [object.kind]: Model } = await import(`kubernetes-models/${object.apiVersion}/${object.kind}`));
  } catch {
    problems.push({ object: name, error: `no schema for ${object.apiVersion} ${object.kind}` });
    continue;
  }
  try {
    new Model(object).validate();
  } catch (err) {
    problems.push({ object: name, error: err instanceof Error ? err.message : String(err) });
  }
}
process.stdout.write(JSON.stringify(problems));
