import type { DevStackHook } from '@nrp/testkit';

/**
 * resolver-svc in the dev stack: it only reads the chain. The stack's env already points `sepolia` at anvil and
 * its ENS contracts; requests without `network` resolve on sepolia. Reverse profiles link avatars to the stack's
 * metadata-svc (`avatarUrl`).
 */
export const prepareDevStack: DevStackHook = async (ctx) => ({
  env: { DEFAULT_NETWORK: 'sepolia', METADATA_PUBLIC_URL: ctx.services.metadata },
});
