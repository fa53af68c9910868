import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import sharp from 'sharp';
import request from 'supertest';
import type { DatabaseHandle } from '@nrp/db';
import type { BlobStore } from '@nrp/storage';
import {
  buildSignInMessage,
  createTestClock,
  createTestDatabase,
  devChainEnv,
  issueNonce,
  signSignInMessage,
  startEnsChain,
  startTestService,
  type EnsChain,
  type SignInMessageFields,
  type TestS3Server,
  type TestService,
} from '@nrp/testkit';
import { configSchema, type Config } from '../src/config';
import type { MetadataContext } from '../src/context';
import type { MetadataDb } from '../src/data/schema';
import { createService } from '../src/service';

export const BASE_URL = 'http://metadata.test';
export const DOMAIN = 'app.test';
export const SEPOLIA = 11155111;

export interface MetadataService extends TestService<Config, MetadataContext> {
  chain: EnsChain;
  db: DatabaseHandle<MetadataDb>;
  /** Moves the service's clock (pending windows, nonce lifetimes, expiries). */
  advance(ms: number): void;
}

export function chainEnv(chain: EnsChain): Record<string, string> {
  return {
    ...devChainEnv(chain.contracts, chain.anvil.rpcUrl),
    // mainnet points at the same local node, so a request for mainnet is refused by chain id, not by RPC errors
    MAINNET_RPC_URL: chain.anvil.rpcUrl,
  };
}

/** Starts the service on a shared chain with a fresh database (PGlite or a PostgreSQL schema) or `opts.database`. */
export async function startMetadataService(
  chain: EnsChain,
  env: Record<string, string> = {},
  opts: { blobs?: BlobStore; database?: DatabaseHandle<MetadataDb> } = {},
): Promise<MetadataService> {
  const clock = createTestClock();
  const db = opts.database ?? (await createTestDatabase<MetadataDb>());
  const service = await startTestService({
    createService,
    configSchema,
    env: {
      PUBLIC_BASE_URL: BASE_URL,
      SIWE_DOMAINS: DOMAIN,
      BLOB_DIR: mkdtempSync(join(tmpdir(), 'metadata-blobs-')),
      PENDING_WINDOW_MS: '60000',
      PENDING_CHECK_INTERVAL_MS: '0',
      ORPHAN_SWEEP_INTERVAL_MS: '0',
      ORPHAN_GRACE_MS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      UPLOAD_RATE_LIMIT_PER_MINUTE: '100000',
      NONCE_RATE_LIMIT_PER_MINUTE: '100000',
      DELETE_RATE_LIMIT_PER_MINUTE: '100000',
      ...chainEnv(chain),
      ...env,
    },
    overrides: { database: db, now: clock.now, ...(opts.blobs ? { blobs: opts.blobs } : {}) },
    handedIn: [db],
  });
  return { ...service, chain, db, advance: clock.advance };
}

export { startEnsChain };

export interface SignOptions extends Pick<SignInMessageFields, 'issuedAt' | 'expirationTime' | 'builder'> {
  domain?: string;
  chainId?: number;
  /** Sign with this key instead of the address's own (contract wallets, wrong signers). */
  signWith?: Wallet;
  /** How the signature is made: EIP-191 personal_sign (default) or the raw digest (ERC-1271 test wallet). */
  raw?: boolean;
}

/** This service's sign-in message: its statement and URI, SIWE_DOMAINS' domain and sepolia unless told. */
export function buildMessage(address: string, nonce: string, o: SignOptions = {}): string {
  const domain = o.domain ?? DOMAIN;
  return buildSignInMessage({
    domain,
    address,
    statement: 'Manage my profile images.',
    uri: `https://${domain}/profile`,
    chainId: o.chainId ?? SEPOLIA,
    nonce,
    issuedAt: o.issuedAt,
    expirationTime: o.expirationTime,
    builder: o.builder,
  });
}

/** An in-process app, or the base URL of a service process. */
type App = MetadataService['app'] | string;

export function issueSignInNonce(app: App, address: string, scope = 'avatar+header'): Promise<string> {
  return issueNonce(app, '/auth/nonce', address, scope);
}

/** A fresh nonce, a message and its signature for `wallet` (or `address` signed by `o.signWith`). */
export async function signedFields(
  app: App,
  wallet: Wallet,
  o: SignOptions & { address?: string; scope?: string } = {},
): Promise<{ siweMessage: string; siweSignature: string; address: string }> {
  const address = o.address ?? wallet.address;
  const nonce = await issueSignInNonce(app, address, o.scope);
  const message = buildMessage(address, nonce, o);
  return {
    siweMessage: message,
    siweSignature: await signSignInMessage(o.signWith ?? wallet, message, o.raw),
    address,
  };
}

export function upload(
  app: App,
  path: string,
  field: string,
  file: Buffer | undefined,
  fields: Record<string, string>,
  filename = 'image.png',
) {
  let req = request(app).post(path);
  for (const [key, value] of Object.entries(fields)) req = req.field(key, value);
  if (file) req = req.attach(field, file, { filename, contentType: 'application/octet-stream' });
  return req;
}

export function png(width = 64, height = 64, color = '#3366ff'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}

export function jpeg(width = 64, height = 64): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#ff0000' } })
    .jpeg()
    .toBuffer();
}

export function walletOf(chain: EnsChain, index: number): Wallet {
  const account = chain.accounts[index];
  if (!account) throw new Error(`no anvil account ${index}`);
  return new Wallet(account.privateKey);
}

/** Keys stored under the image prefix. */
export function storedKeys(blobs: BlobStore): Promise<string[]> {
  return blobs.list('img/');
}

export async function imageRows(db: DatabaseHandle<MetadataDb>) {
  return db.db.selectFrom('images').selectAll().execute();
}

/** S3_* variables of a test s3rver (`endpoint` overrides its own, e.g. a fault proxy in front of it). */
export function s3Env(s3: TestS3Server, endpoint = s3.endpoint): Record<string, string> {
  return {
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: endpoint,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
}

/** The environment of the service run as its own process (`startServiceProcess`) on `chain`, PostgreSQL `databaseUrl`. */
export function processEnv(
  chain: EnsChain,
  databaseUrl: string,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: BASE_URL,
    SIWE_DOMAINS: DOMAIN,
    PENDING_CHECK_INTERVAL_MS: '0',
    ORPHAN_SWEEP_INTERVAL_MS: '0',
    NONCE_SWEEP_INTERVAL_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    UPLOAD_RATE_LIMIT_PER_MINUTE: '100000',
    NONCE_RATE_LIMIT_PER_MINUTE: '100000',
    DELETE_RATE_LIMIT_PER_MINUTE: '100000',
    ...chainEnv(chain),
    ...env,
  };
}
