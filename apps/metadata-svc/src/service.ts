import { createApp, parseTrustProxy, readPackageVersion, type ServiceFactory } from '@nrp/server';
import type { Config } from './config';

export const SERVICE_NAME = 'metadata-svc';

const description = `Image and metadata service: token metadata, default images, sign-in nonces and avatar/header uploads.`;

export const createService: ServiceFactory<Config> = async (config, logger) => {
  const app = createApp({
    service: SERVICE_NAME,
    version: readPackageVersion(require.resolve('../package.json')),
    description,
    logger,
    routes: [],
    corsOrigins: config.CORS_ORIGINS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
  });
  return { app, onShutdown: [] };
};
