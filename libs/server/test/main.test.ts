import { spawn, spawnSync } from 'node:child_process';
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

  it('logs its version and redacted configuration at start, serves process metrics, and exits 0 after draining on SIGTERM', async () => {
    const child = spawn(process.execPath, ['-r', 'esbuild-register', fixture], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        // Parsed but never connected to by the fixture: only its appearance in the log matters.
        REDIS_URL: 'redis://default:hunter2@127.0.0.1:6399/0',
      },
    });
    let stdout = '';
    const listening = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"msg":"listening"')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await listening;
    const { url } = JSON.parse(
      stdout.split('\n').find((line) => line.includes('"msg":"listening"')) ?? '{}',
    ) as {
      url: string;
    };
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^process_resident_memory_bytes\{service="fixture-svc"\} \d+/m);
    expect(metrics).toContain('nodejs_gc_duration_seconds');
    // Without --expose-gc nothing releases memory when idle.
    expect(metrics).not.toContain('process_idle_memory_releases_total');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; version?: string; config?: Record<string, unknown> });
    const starting = lines.find((line) => line.msg === 'starting');
    expect(starting?.version).toBe('1.2.3');
    expect(starting?.config).toMatchObject({
      PORT: 0,
      LOG_LEVEL: 'info',
      REDIS_URL: 'redis://127.0.0.1:6399/***',
    });
    expect(stdout).not.toContain('hunter2');
    const messages = lines.map((line) => line.msg);
    expect(messages.slice(0, 2)).toEqual(['starting', 'listening']);
    expect(messages).toEqual(expect.arrayContaining(['draining', 'stopped']));
  });

  it('with --expose-gc, runs one full collection once requests were served and none came for IDLE_MEMORY_RELEASE_MS', async () => {
    const child = spawn(process.execPath, ['--expose-gc', '-r', 'esbuild-register', fixture], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'debug',
        IDLE_MEMORY_RELEASE_MS: '300',
      },
    });
    let stdout = '';
    const listening = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((l) => l.includes('"msg":"listening"'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await listening;
      const releases = async (): Promise<number> => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return Number(/^process_idle_memory_releases_total\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? Number.NaN);
      };
      const idle = () => new Promise((resolve) => setTimeout(resolve, 1200));
      await idle();
      expect(await releases()).toBe(0); // idle since the start, nothing served: nothing to give back
      await idle();
      expect(await releases()).toBe(1); // the request above, then idle: one release, not one per interval
      await idle();
      expect(await releases()).toBe(2);
      expect(stdout).toContain('"msg":"idle: memory released"');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
