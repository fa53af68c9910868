import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no type declarations; the small surface used here is typed below.
// @ts-expect-error TS7016: untyped CommonJS module
import S3rverUntyped from 's3rver';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;
const S3rver = S3rverUntyped as S3rverConstructor;

export interface TestS3Server {
  endpoint: string;
  port: number;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops the server, keeping what it stores (requests in flight are answered first). */
  kill(): Promise<void>;
  /** Starts it again after `kill`, on the same port and directory. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** A real s3rver on a random local port, storing in a fresh temp directory, with one bucket created. */
export async function startS3Server(opts: { bucket?: string } = {}): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'nrp-s3rver-'));
  const bucket = opts.bucket ?? `test-${randomBytes(4).toString('hex')}`;
  const run = async (port: number) => {
    const server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    return { server, address: await server.run() };
  };
  let running: S3rverInstance | undefined;
  let address: AddressInfo;
  try {
    ({ server: running, address } = await run(0));
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const kill = async () => {
    const server = running;
    running = undefined;
    await server?.close();
  };
  let stopped = false;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    bucket,
    region: 'us-east-1',
    // s3rver's built-in default credentials.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    kill,
    restart: async () => {
      ({ server: running } = await run(address.port));
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await kill();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
