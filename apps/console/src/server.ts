/**
 * The console's static server: the built page from `publicDir` and `/config.json` (where the services are). GET and
 * HEAD only, no directory listing, no path outside `publicDir`; used by `npm start` and by the image. Every answer
 * (404s, refusals and `/config.json` included) carries the Content-Security-Policy and the other security headers.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { ConsoleConfig } from './config';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

export function createConsoleServer(publicDir: string, config: ConsoleConfig): Server {
  const root = path.resolve(publicDir);
  const configBody = JSON.stringify(config);
  const connectSources = [...new Set(Object.values(config.services).map((url) => new URL(url).origin))];
  const csp = [
    "default-src 'self'",
    `connect-src 'self' ${connectSources.join(' ')}`,
    `img-src 'self' https: data: ${connectSources.join(' ')}`,
    "frame-ancestors 'none'",
  ].join('; ');
  const securityHeaders = {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
  return createServer((req, res) => {
    void (async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', ...securityHeaders }).end();
        return;
      }
      let pathname: string;
      try {
        pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://console').pathname);
      } catch {
        res.writeHead(400, securityHeaders).end();
        return;
      }
      if (pathname === '/config.json') {
        res.writeHead(200, {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          ...securityHeaders,
        });
        res.end(req.method === 'HEAD' ? undefined : configBody);
        return;
      }
      const file = path.resolve(root, `.${pathname === '/' ? '/index.html' : pathname}`);
      const type = TYPES[path.extname(file)];
      if (!file.startsWith(`${root}${path.sep}`) || !type) {
        res.writeHead(404, securityHeaders).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, {
          'content-type': type,
          'cache-control': 'no-cache',
          ...securityHeaders,
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      } catch {
        res.writeHead(404, securityHeaders).end();
      }
    })();
  });
}
