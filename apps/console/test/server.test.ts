/**
 * The console's static server through HTTP: every answer carries the Content-Security-Policy that allows only the
 * page's own origin and the services' (the page, `/config.json`, a 404, a refused method, an undecodable path).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConsoleServer } from '../src/server';

const services = {
  offchain: 'http://127.0.0.1:4003',
  mint: 'http://127.0.0.1:4002',
  metadata: 'http://127.0.0.1:4001',
  resolver: 'http://127.0.0.1:4004',
};
const origins = Object.values(services).join(' ');
const CSP =
  `default-src 'self'; connect-src 'self' ${origins}; img-src 'self' https: data: ${origins}; ` +
  "frame-ancestors 'none'";

describe('the console server', () => {
  const publicDir = mkdtempSync(path.join(tmpdir(), 'nrp-console-public-'));
  let server: Server;
  let base: string;

  beforeAll(async () => {
    writeFileSync(path.join(publicDir, 'index.html'), '<!doctype html><title>console</title>');
    server = createConsoleServer(publicDir, { network: 'sepolia', services });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(publicDir, { recursive: true, force: true });
  });

  it.each([
    ['the page', 'GET', '/', 200],
    ['/config.json', 'GET', '/config.json', 200],
    ['a missing file', 'GET', '/missing.js', 404],
    ['a file type it does not serve', 'GET', '/index.txt', 404],
    ['a path outside the page', 'GET', '/..%2f..%2fetc%2fpasswd.html', 404],
    ['an undecodable path', 'GET', '/%E0%A4%A', 400],
    ['a method other than GET and HEAD', 'POST', '/', 405],
  ])('%s: %s %s answers %i with the CSP', async (_what, method, pathname, status) => {
    const response = await fetch(`${base}${pathname}`, { method });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-security-policy')).toBe(CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('/config.json is the configuration the page reads', async () => {
    const response = await fetch(`${base}/config.json`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ network: 'sepolia', services });
  });
});
