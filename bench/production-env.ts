/** What a service's Kubernetes Deployment (k8s/base) sets for its Node process, for benches that run it as production. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

interface Deployment {
  kind?: string;
  spec?: { template?: { spec?: { containers?: Array<{ env?: Array<{ name: string; value?: string }> }> } } };
}

/** The NODE_OPTIONS of `service`'s container in k8s/base/<service>.yaml ('' when it sets none). */
export function deploymentNodeOptions(service: string): string {
  const file = path.join(__dirname, '..', 'k8s', 'base', `${service}.yaml`);
  const deployment = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJSON() as Deployment)
    .find((object) => object.kind === 'Deployment');
  const env = deployment?.spec?.template?.spec?.containers?.[0]?.env ?? [];
  return env.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
}
