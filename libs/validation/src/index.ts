export * from './problem';
export * from './schemas';
export * from './validate';
export * from './error-handler';
