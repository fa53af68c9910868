import type { DevStackHook } from '@nrp/testkit/src/dev-stack';

/**
 * resolver-svc in the dev stack: it reads the chain, and mint-svc and offchain-svc for the names of an address. The
 * stack's env already points `sepolia` at anvil and its ENS contracts; requests without `network` resolve on sepolia.
 * Reverse profiles link avatars to the stack's metadata-svc (`avatarUrl`).
 */
export const prepareDevStack: DevStackHook = async (ctx) => ({
  env: {
    DEFAULT_NETWORK: 'sepolia',
    METADATA_PUBLIC_URL: ctx.services.metadata,
    // GET /ens/v2/names/{address} merges mint-svc's names index with offchain-svc's subnames.
    MINT_URL: ctx.services.mint,
    OFFCHAIN_URL: ctx.services.offchain,
  },
});
