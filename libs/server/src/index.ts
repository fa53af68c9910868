export * from './app';
export * from './config';
export * from './logger';
export * from './metrics';
export * from './openapi';
export * from './rate-limit';
export * from './route';
export * from './run';
export { readPackageVersion } from './docs';
