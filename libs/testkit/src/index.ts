export * from './anvil';
export * from './ens-fixture';
export * from './test-gateway';
export * from './s3-server';
export * from './database';
export * from './redis';
export * from './dev-stack';
export * from './ports';
