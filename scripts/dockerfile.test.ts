/**
 * The image build installs the workspace from its package.json files before copying the sources (so the install
 * layer is cached): a workspace package the Dockerfile does not copy is missing from the install, and the bundle of
 * every service that imports it fails to build (scripts/images.sh builds them for real; this catches it in CI).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

it('docker/Dockerfile copies the package.json of every workspace package before npm ci', () => {
  const dockerfile = readFileSync(path.join(root, 'docker/Dockerfile'), 'utf8');
  const workspaces = ['apps', 'libs'].flatMap((dir) =>
    readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}`),
  );
  expect(workspaces.length).toBeGreaterThan(8);
  const missing = workspaces.filter(
    (workspace) => !dockerfile.includes(`COPY ${workspace}/package.json ${workspace}/`),
  );
  expect(missing).toEqual([]);
});
