import { Wallet } from 'ethers';
import { SiweMessage } from 'siwe';
import { createSiweMessage } from 'viem/siwe';
import { migrate, type DatabaseHandle } from '@nrp/db';
import { createTestDatabase } from '@nrp/testkit';
import { ProblemError } from '@nrp/validation';
import { nonceMigration, type NonceTables } from '../src';

/** Fixed keys (anvil's accounts 0 and 1), so failures are reproducible. */
export const alice = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const bob = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

export const DOMAIN = 'app.example.com';
export const CHAIN_ID = 11155111;

/** A fresh database (PGlite, or a new schema when DATABASE_URL is set) with the nonce table migrated. */
export async function openNonceDatabase(table = 'auth_nonces'): Promise<DatabaseHandle<NonceTables>> {
  const handle = await createTestDatabase<NonceTables>();
  await migrate(handle, {
    table: `${table}_migrations`,
    migrations: { '0001_nonces': nonceMigration(table) },
  });
  return handle;
}

export interface MessageFields {
  domain?: string;
  address: string;
  chainId?: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
  statement?: string;
  requestId?: string;
  resources?: string[];
}

/** Built by the `siwe` package. */
export function siweMessage(f: MessageFields): string {
  return new SiweMessage({
    domain: f.domain ?? DOMAIN,
    address: f.address,
    statement: f.statement ?? 'Upload an avatar.',
    uri: `https://${f.domain ?? DOMAIN}/profile`,
    version: '1',
    chainId: f.chainId ?? CHAIN_ID,
    nonce: f.nonce,
    issuedAt: f.issuedAt.toISOString(),
    expirationTime: f.expirationTime?.toISOString(),
    notBefore: f.notBefore?.toISOString(),
    requestId: f.requestId,
    resources: f.resources,
  }).prepareMessage();
}

/** Built by viem's `createSiweMessage`. */
export function viemMessage(f: MessageFields): string {
  return createSiweMessage({
    domain: f.domain ?? DOMAIN,
    address: f.address as `0x${string}`,
    statement: f.statement ?? 'Upload an avatar.',
    uri: `https://${f.domain ?? DOMAIN}/profile`,
    version: '1',
    chainId: f.chainId ?? CHAIN_ID,
    nonce: f.nonce,
    issuedAt: f.issuedAt,
    expirationTime: f.expirationTime,
    notBefore: f.notBefore,
    requestId: f.requestId,
    resources: f.resources,
  });
}

/** Awaits `promise`, expecting it to reject with a ProblemError of `code` whose detail matches `detail`. */
export async function expectRejection(
  promise: Promise<unknown>,
  code: string,
  detail?: RegExp,
  status = 401,
): Promise<ProblemError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ProblemError)) {
    throw new Error(`expected a ProblemError ${code}, got ${err instanceof Error ? err.stack : String(err)}`);
  }
  expect({ code: err.code, status: err.status }).toEqual({ code, status });
  if (detail) expect(err.message).toMatch(detail);
  return err;
}
