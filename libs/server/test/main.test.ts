import { spawnSync } from 'node:child_process';
import path from 'node:path';

const fixture = path.join(__dirname, 'fixtures', 'main-fixture.ts');

describe('main', () => {
  it('a bad configuration value stops the process with one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['-r', 'esbuild-register', fixture], {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^Invalid configuration: PORT: .*"not-a-port"/);
  });
});
