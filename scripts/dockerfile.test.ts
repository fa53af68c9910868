/**
 * The image build installs the workspace from its package.json files before copying the sources (so the install
 * layer is cached): a workspace package the Dockerfile does not copy is missing from the install, and the bundle of
 * every service that imports it fails to build (scripts/images.sh builds them for real; this catches it in CI).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_RUNTIME_ENV } from '@nrp/testkit';

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

it('every image scripts/images.sh builds is a final stage of its own on the Node image, run as uid 1000', () => {
  const dockerfile = readFileSync(path.join(root, 'docker/Dockerfile'), 'utf8');
  const images = /^images=\(([^)]*)\)$/m.exec(
    readFileSync(path.join(root, 'scripts/images.sh'), 'utf8'),
  )?.[1];
  const targets = images?.split(' ') ?? [];
  expect(targets).toEqual(['metadata-svc', 'mint-svc', 'offchain-svc', 'resolver-svc', 'console', 'prover']);
  const stages = new Map(
    dockerfile
      .split(/^(?=FROM )/m)
      .slice(1)
      .map((stage) => [/^FROM (\S+) AS (\S+)$/m.exec(stage)?.slice(1, 3).reverse().join(' ') ?? '', stage]),
  );
  for (const target of targets) {
    const stage = stages.get(`${target} \${NODE_IMAGE}`);
    expect(stage).toContain('USER 1000:1000');
    // The prover's arguments follow the image's name (`docker run nrp/prover --l1 …`): its command is the entrypoint.
    expect(stage).toContain(target === 'prover' ? 'ENTRYPOINT ["node"' : 'CMD ["node"');
    // The services' runtime settings, which bench and test service processes share (the console serves files).
    if (target !== 'console') {
      const env = /^ENV (.*)$/m.exec(stage ?? '')?.[1]?.split(' ') ?? [];
      for (const [name, value] of Object.entries(SERVICE_RUNTIME_ENV))
        expect(env).toContain(`${name}=${value}`);
    }
  }
  // A build stage runs nothing as a service would (a missing FROM once made the metadata-svc lines part of one).
  for (const [name, stage] of stages)
    if (name.includes('-build')) expect(stage).not.toMatch(/^(USER|CMD|ENTRYPOINT) /m);
});
