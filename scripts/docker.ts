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
