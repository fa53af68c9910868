export * from './media-types';
export * from './metadata';
export * from './mint';
export * from './offchain';
export * from './offchain-bulk';
export * from './offchain-webhooks';
export * from './resolver';
export * from './signed-request';
