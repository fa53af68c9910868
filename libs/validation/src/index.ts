export * from './problem';
export * from './schemas';
export * from './env';
export * from './validate';
export * from './error-handler';
