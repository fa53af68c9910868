/** Rebuilds libs/contracts/artifacts/<Name>.json from libs/contracts/src/**\/*.sol: `npm run contracts:build`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_DIR, artifactJson, compileAll } from './solc';

const artifacts = compileAll();
mkdirSync(ARTIFACTS_DIR, { recursive: true });
for (const artifact of artifacts) {
  writeFileSync(path.join(ARTIFACTS_DIR, `${artifact.contractName}.json`), artifactJson(artifact));
  console.log(`wrote artifacts/${artifact.contractName}.json`);
}
