/** The container engine as the image smoke tests drive it (the `docker` CLI). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A docker command that must succeed: its trimmed stdout. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

/** docker run that may fail: its exit code and both streams. */
export async function dockerRun(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('docker', ['run', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Removes the container `name`, if there is one. */
export async function removeContainer(name: string): Promise<void> {
  await run('docker', ['rm', '-f', name]).catch(() => undefined);
}

/**
 * Starts `image` detached as `name` (replacing one of that name) the way operators run our images: on the host
 * network, with a read-only root filesystem and a tmpfs /tmp, and `env` as its variables; `extraArgs` are more
 * options of `docker run`, `command` the arguments after the image's name.
 */
export async function startContainer(
  name: string,
  image: string,
  env: Record<string, string>,
  extraArgs: string[] = [],
  command: string[] = [],
): Promise<void> {
  await removeContainer(name);
  await docker(
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    ...extraArgs,
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    image,
    ...command,
  );
}

/** One image's smoke checks: a line each (`FAILED: ` before the detail of a failed one), and whether any failed. */
export interface ImageChecks {
  lines: string[];
  failed: boolean;
  check(what: string, ok: boolean, detail: string): void;
}

export function imageChecks(): ImageChecks {
  const checks: ImageChecks = {
    lines: [],
    failed: false,
    check(what, ok, detail) {
      checks.lines.push(`  ${what.padEnd(14)} ${ok ? '' : 'FAILED: '}${detail}`);
      if (!ok) checks.failed = true;
    },
  };
  return checks;
}

/** `image` run with only `dockerArgs` (no configuration) must exit 1 with one line on stderr, starting `firstWords`. */
export async function checkBareRun(
  checks: ImageChecks,
  what: string,
  image: string,
  dockerArgs: string[],
  firstWords: string,
): Promise<void> {
  const bare = await dockerRun(['--rm', '--network', 'host', '--read-only', ...dockerArgs, image]);
  const lines = bare.stderr.trim().split('\n').filter(Boolean);
  checks.check(
    what,
    bare.code === 1 && lines.length === 1 && Boolean(lines[0]?.startsWith(firstWords)),
    `exit ${bare.code}: ${lines.join(' | ').slice(0, 200)}`,
  );
}

/** The container `name` of `image`: its size above the base image, and that it runs as non-root, read-only. */
export async function checkImage(checks: ImageChecks, image: string, name: string): Promise<void> {
  const baseSize = Number(await docker('image', 'inspect', '-f', '{{.Size}}', 'node:24-bookworm-slim'));
  const size = Number(await docker('image', 'inspect', '-f', '{{.Size}}', image));
  const uid = await docker('exec', name, 'id', '-u');
  const readOnly = await docker('inspect', '-f', '{{.HostConfig.ReadonlyRootfs}}', name);
  checks.check(
    'image',
    uid !== '0' && readOnly === 'true',
    `${((size - baseSize) / 1e6).toFixed(1)} MB above base, uid ${uid}, read-only ${readOnly}`,
  );
}

/** SIGTERM to the container `name`: it must exit 0. */
export async function checkSigterm(checks: ImageChecks, name: string): Promise<void> {
  await docker('kill', '--signal', 'TERM', name);
  const code = await docker('wait', name);
  checks.check('SIGTERM', code === '0', `exit ${code}`);
}

/** A smoke test run alone: prints its checks under `title`; exits 1 when one failed or the test threw. */
export function exitWithImageChecks(title: string, run: Promise<{ lines: string[]; failed: boolean }>): void {
  run.then(
    ({ lines, failed }) => {
      console.log([title, ...lines].join('\n'));
      process.exit(failed ? 1 : 0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
