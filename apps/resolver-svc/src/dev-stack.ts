import type { DevStackHook } from '@nrp/testkit';

/**
 * resolver-svc in the dev stack: it only reads the chain. The stack's env already points `sepolia` at anvil and
 * its ENS contracts; requests without `network` resolve on sepolia.
 */
export const prepareDevStack: DevStackHook = async () => ({
  env: { DEFAULT_NETWORK: 'sepolia' },
});
