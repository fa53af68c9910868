/**
 * The flow helpers: the sign-in message (checked against the service's own EIP-4361 parser and viem's builder)
 * and waitForImage against a real HTTP server that plays a pending upload being confirmed.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSiweMessage } from 'viem/siwe';
import { parseSignInMessage } from '@nrp/auth';
import {
  buildSignInMessage,
  createMetadataClient,
  imageSignInMessage,
  listingSignInMessage,
  minterSignInMessage,
  ServiceError,
} from '../src/index';

const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const NONCE = 'abcdefgh12345678';
const ISSUED = new Date('2026-01-02T03:04:05.000Z');

describe('imageSignInMessage', () => {
  const input = {
    serviceUrl: 'https://meta.example.com/',
    domain: 'app.example.com',
    address: ADDRESS,
    nonce: NONCE,
    network: 'sepolia' as const,
    subname: 'alice.offchain.eth',
    kind: 'avatar' as const,
    operation: 'upload' as const,
    issuedAt: ISSUED,
  };

  it("is bound to the image and the operation, and parses with the service's EIP-4361 parser", () => {
    const parsed = parseSignInMessage(imageSignInMessage(input));
    const url = 'https://meta.example.com/profile/sepolia/alice.offchain.eth/avatar';
    expect(parsed).toMatchObject({
      domain: 'app.example.com',
      address: ADDRESS,
      statement: 'Upload the avatar of alice.offchain.eth on sepolia.',
      uri: url,
      version: '1',
      chainId: 11155111,
      nonce: NONCE,
      issuedAt: ISSUED,
      expirationTime: new Date(ISSUED.getTime() + 10 * 60_000),
      resources: [url],
    });
    const deletion = parseSignInMessage(
      imageSignInMessage({ ...input, operation: 'delete', kind: 'header' }),
    );
    expect(deletion.statement).toBe('Delete the header of alice.offchain.eth on sepolia.');
    expect(deletion.resources).toEqual([
      'https://meta.example.com/profile/sepolia/alice.offchain.eth/header',
    ]);
  });

  it("lays the message out exactly as viem's builder does", () => {
    const fields = {
      domain: 'localhost:5173',
      address: ADDRESS as `0x${string}`,
      statement: 'Sign in.',
      uri: 'http://localhost:5173/profile',
      chainId: 1,
      nonce: NONCE,
      issuedAt: ISSUED,
      expirationTime: new Date('2026-01-02T04:00:00.000Z'),
      resources: ['https://a.example/1', 'https://a.example/2'],
    };
    expect(buildSignInMessage(fields)).toBe(createSiweMessage({ ...fields, version: '1' }));
    const { statement: _none, ...withoutStatement } = fields;
    expect(buildSignInMessage(withoutStatement)).toBe(
      createSiweMessage({ ...withoutStatement, version: '1' }),
    );
  });

  it('refuses fields that would change the layout', () => {
    expect(() => buildSignInMessage({ ...input, uri: 'x', chainId: 1, statement: 'two\nlines' })).toThrow(
      'statement must be a single line',
    );
    expect(() => imageSignInMessage({ ...input, address: '0x1234' })).toThrow(TypeError);
    expect(() => imageSignInMessage({ ...input, nonce: 'short' })).toThrow(TypeError);
  });
});

describe('listingSignInMessage and minterSignInMessage', () => {
  const common = {
    serviceUrl: 'https://mint.example.com/',
    domain: 'app.example.com',
    address: ADDRESS,
    nonce: NONCE,
    network: 'mainnet' as const,
    issuedAt: ISSUED,
  };

  it('bind to the listing URL and the operation, or to the minter verification route', () => {
    const listingUrl = 'https://mint.example.com/api/v1/listings/mainnet/shop.eth';
    expect(
      parseSignInMessage(listingSignInMessage({ ...common, parentName: 'shop.eth', operation: 'update' })),
    ).toMatchObject({
      statement: 'Update the listing of shop.eth on mainnet.',
      uri: listingUrl,
      chainId: 1,
      resources: [listingUrl],
      expirationTime: new Date(ISSUED.getTime() + 10 * 60_000),
    });
    const deletion = parseSignInMessage(
      listingSignInMessage({ ...common, parentName: 'shop.eth', operation: 'delete' }),
    );
    expect(deletion.statement).toBe('Delete the listing of shop.eth on mainnet.');
    const minter = parseSignInMessage(minterSignInMessage(common));
    expect(minter).toMatchObject({
      statement: `Verify ${ADDRESS} as a minter on mainnet.`,
      uri: 'https://mint.example.com/api/v1/minters/verify',
      resources: ['https://mint.example.com/api/v1/minters/verify'],
    });
  });

  it("an L2 listing's message names the L2 listing URL and carries the chain id of the L1 it settles on", () => {
    const l2 = parseSignInMessage(
      listingSignInMessage({ ...common, network: 'base-sepolia', parentName: 'l2.eth', operation: 'update' }),
    );
    expect(l2).toMatchObject({
      statement: 'Update the listing of l2.eth on base-sepolia.',
      uri: 'https://mint.example.com/api/v1/listings/base-sepolia/l2.eth',
      chainId: 11155111,
    });
    const base = listingSignInMessage({
      ...common,
      network: 'base',
      parentName: 'l2.eth',
      operation: 'delete',
    });
    expect(parseSignInMessage(base).chainId).toBe(1);
  });
});

describe('waitForImage', () => {
  let server: Server;
  let baseUrl: string;
  /**
   * What the image URL answers next: 404 while pending, then the image (Last-Modified = its upload time); what its
   * confirm URL answers: `confirm` (a problem code, or 200 and the image visible from then on), by default that
   * nothing is pending (the service's worker confirms).
   */
  let state: { confirmedAt?: Date; failWith?: number; confirm?: string[] } = {};
  let requests = 0;
  let confirms = 0;

  const problem = (res: ServerResponse, status: number, code: string): void => {
    res.writeHead(status, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ status, code, detail: code, title: code }));
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.endsWith('/confirm')) {
        confirms += 1;
        const answer = state.confirm?.shift() ?? 'PENDING_UPLOAD_NOT_FOUND';
        if (answer === 'RECORD_NOT_SET') problem(res, 409, answer);
        else if (answer !== 'confirmed') problem(res, answer === 'NOT_SUBNAME_OWNER' ? 403 : 404, answer);
        else {
          state.confirmedAt = new Date();
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }
        return;
      }
      requests += 1;
      if (state.failWith) {
        res.writeHead(state.failWith, { 'content-type': 'text/plain' }).end('down');
      } else if (state.confirmedAt) {
        res.writeHead(200, { 'content-type': 'image/png', 'last-modified': state.confirmedAt.toUTCString() });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      } else {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({ status: 404, code: 'IMAGE_NOT_FOUND', detail: 'pending', title: 'Not found' }),
        );
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    state = {};
    requests = 0;
    confirms = 0;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const target = { network: 'sepolia' as const, subname: 'alice.offchain.eth' };

  it('checks again with a backoff until the upload is visible, and resolves with its stable URL', async () => {
    const uploadedAt = new Date('2026-01-02T03:04:05.678Z');
    const client = createMetadataClient({
      baseUrl,
      // The third check sees the confirmed upload; before it an older image (the one replaced) is visible.
      fetch: (input, init) => {
        if (requests === 1) state.confirmedAt = new Date('2026-01-01T00:00:00Z');
        if (requests === 2) state.confirmedAt = uploadedAt;
        return fetch(input, init);
      },
    });
    const url = await client.waitForImage(target, 'avatar', {
      uploadedAt: uploadedAt.toISOString(),
      initialDelayMs: 5,
    });
    expect(url).toBe(`${baseUrl}/profile/sepolia/alice.offchain.eth/avatar`);
    expect(requests).toBe(3);
    expect(confirms).toBe(3);
  });

  it('asks the service to confirm until the record is set, then resolves without a GET', async () => {
    state.confirm = ['RECORD_NOT_SET', 'RECORD_NOT_SET', 'confirmed'];
    const client = createMetadataClient({ baseUrl });
    const url = await client.waitForImage(target, 'avatar', { initialDelayMs: 5 });
    expect(url).toBe(`${baseUrl}/profile/sepolia/alice.offchain.eth/avatar`);
    expect([confirms, requests]).toEqual([3, 0]);
  });

  it('rejects with a confirmation that cannot come (the uploader does not own the name)', async () => {
    state.confirm = ['NOT_SUBNAME_OWNER'];
    const client = createMetadataClient({ baseUrl });
    await expect(client.waitForImage(target, 'avatar', { initialDelayMs: 5 })).rejects.toMatchObject({
      status: 403,
      code: 'NOT_SUBNAME_OWNER',
    });
  });

  it('rejects with the signal reason when aborted, and with any answer but IMAGE_NOT_FOUND', async () => {
    const client = createMetadataClient({ baseUrl });
    const controller = new AbortController();
    const waiting = client.waitForImage(target, 'avatar', {
      signal: controller.signal,
      initialDelayMs: 60_000,
    });
    while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('the user left the page'));
    await expect(waiting).rejects.toThrow('the user left the page');

    state.failWith = 502;
    const failed = client.waitForImage(target, 'avatar', { initialDelayMs: 5 });
    await expect(failed).rejects.toBeInstanceOf(ServiceError);
    await expect(failed).rejects.toMatchObject({ status: 502 });
  });
});
