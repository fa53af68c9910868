import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-auth-token"]',
        'req.headers.cookie',
        '*.privateKey',
        '*.signerKey',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  });
}
