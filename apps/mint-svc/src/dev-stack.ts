import type { DevStackHook } from '@nrp/testkit';

/** What `npm start` adds for this service: its environment, contracts, demo names and post-start steps. */
export const prepareDevStack: DevStackHook = async () => ({});
