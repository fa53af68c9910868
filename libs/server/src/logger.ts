import { pino, type DestinationStream, type Logger } from 'pino';
import { currentRequestLogFields } from './request-context';

export type { Logger };

const NO_FIELDS = {};

/**
 * The service's logger. A line written while a request is handled carries that request's id and trace context
 * (`requestContext`), whichever module writes it: no logger has to be handed down for that.
 */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      mixin: () => currentRequestLogFields() ?? NO_FIELDS,
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
    },
    destination,
  );
}
