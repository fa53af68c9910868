/**
 * Offchain subname service: schemas of self-serve onboarding — sign-in sessions (EIP-4361 → bearer token), API keys
 * that an address issues for the names it controls on chain, and the on-chain setup of a parent name.
 */
import { z } from 'zod';
import { NETWORK_NAMES } from '@nrp/ens';
import { ensName, ethAddress } from '@nrp/validation';
import { signedRequestSchema } from './signed-request';

export const SELF_SERVE_LIMITS = { noteLength: 200 } as const;

const offchainNetwork = z.enum(NETWORK_NAMES).meta({ description: '`mainnet` or `sepolia`.' });

export const sessionNonceRequest = z.strictObject({
  address: ethAddress,
  scope: z
    .literal('session')
    .default('session')
    .meta({ description: 'Always `session`: the nonce authorises POST /api/v1/auth/session.' }),
});
export type SessionNonceInput = z.input<typeof sessionNonceRequest>;

export const sessionNonceResponse = z.object({
  nonce: z.string(),
  expiresAt: z.number().int().meta({ description: 'Unix time in milliseconds.' }),
});

export const createSessionRequest = z.strictObject(signedRequestSchema.shape);
export type CreateSessionInput = z.input<typeof createSessionRequest>;

export const sessionSchema = z
  .object({
    token: z
      .string()
      .meta({ description: 'Opaque bearer token (`Authorization: Bearer <token>`), shown only here.' }),
    address: z.string().meta({ description: 'The signed-in address (EIP-55).' }),
    expiresAt: z.number().int().meta({ description: 'Unix time in milliseconds.' }),
  })
  .meta({ id: 'Session' });
export type Session = z.output<typeof sessionSchema>;

export const createKeyRequest = z.strictObject({
  parentName: ensName({ min: 1, max: 255 }),
  network: offchainNetwork.default('mainnet'),
  note: z.string().max(SELF_SERVE_LIMITS.noteLength).optional(),
  includeDescendants: z.boolean().default(false).meta({
    description: 'true: the key manages names at any depth below `parentName`; false: direct children only.',
  }),
});
export type CreateKeyInput = z.input<typeof createKeyRequest>;

export const apiKeySchema = z
  .object({
    id: z.string(),
    parentName: z.string(),
    network: offchainNetwork,
    includeDescendants: z.boolean(),
    note: z.string().nullable(),
    createdAt: z.string(),
    lastUsedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the key last authorised a write (reads are not recorded); null: never.' }),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.output<typeof apiKeySchema>;

export const createdKeySchema = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'The API key (`x-auth-token`), shown only here.' }),
    parentName: z.string(),
    network: offchainNetwork,
    includeDescendants: z.boolean(),
    note: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'CreatedApiKey' });
export type CreatedKey = z.output<typeof createdKeySchema>;

export const listKeysResponse = z.object({ items: z.array(apiKeySchema) });
export const keyIdParams = z.object({ id: z.uuid() });

export const parentSetupParams = z.object({ parentName: ensName({ min: 1, max: 255 }) });
export const parentSetupQuery = z.object({ network: offchainNetwork.default('mainnet') });

export const setupStepSchema = z.object({
  description: z.string(),
  to: z.string().meta({ description: 'Contract to call (the ENS registry, or the NameWrapper).' }),
  data: z.string().meta({ description: 'Calldata, 0x-hex.' }),
  value: z.string().meta({ description: 'Wei to send, decimal (always "0").' }),
});
export type SetupStep = z.output<typeof setupStepSchema>;

export const parentSetupSchema = z
  .object({
    parentName: z.string(),
    network: offchainNetwork,
    controller: z.string().nullable().meta({ description: 'Who controls the name on chain; null: nobody.' }),
    wrapped: z.boolean(),
    resolver: z.string().nullable().meta({ description: 'The resolver set on the name; null: none.' }),
    resolverIsOurs: z.boolean(),
    ready: z.boolean().meta({ description: 'true: its subnames resolve through this service already.' }),
    steps: z
      .array(setupStepSchema)
      .meta({ description: 'Transactions the controller sends, in order, to become ready; [] when ready.' }),
  })
  .meta({ id: 'ParentSetup' });
export type ParentSetup = z.output<typeof parentSetupSchema>;

/** Response schemas by client method, for `createOffchainClient({ responseSchemas })`. */
export const selfServeResponseSchemas = {
  signIn: sessionSchema,
  createKey: createdKeySchema,
  listKeys: listKeysResponse,
  parentSetup: parentSetupSchema,
};
