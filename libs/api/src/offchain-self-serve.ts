/**
 * Offchain subname service: schemas of self-serve onboarding — sign-in sessions (EIP-4361 → bearer token), API keys
 * that an address issues for the names it controls on chain, and the on-chain setup of a parent name.
 */
import { z } from 'zod';
import { L2_NETWORK_NAMES, NETWORK_NAMES } from '@nrp/ens';
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

const l2SetupStepSchema = setupStepSchema.extend({
  to: z.string().nullable().meta({
    description:
      'Contract to call (the ENS registry, or the NameWrapper); null: a contract creation (the resolver).',
  }),
  contractAddress: z
    .string()
    .nullable()
    .meta({
      description:
        "For a contract creation: the address it gets when it is the controller's next transaction, the one the " +
        'setResolver step after it names (a wallet checks its receipt against it before sending that step); null for ' +
        'a call.',
    }),
});

export const l2ResolverOptionSchema = z
  .object({
    kind: z.enum(['signed', 'proven']),
    contract: z
      .enum(['L2NameResolver', 'ProvenL2Resolver'])
      .meta({ description: 'The L1 resolver deployed.' }),
    trust: z
      .string()
      .meta({ description: 'What an L1 client resolving through it trusts, and how fresh answers are.' }),
    gatewayUrl: z.string().meta({ description: "The URL the resolver's lookups go to (this service)." }),
    chosen: z
      .boolean()
      .meta({ description: 'true: the parent resolves through this resolver of its registry.' }),
    steps: z.array(l2SetupStepSchema).meta({
      description:
        'Transactions the controller sends, in order: the deployment, then setResolver to the address it gets when ' +
        "it is the controller's next transaction; [] when chosen or nobody controls the name.",
    }),
  })
  .meta({ id: 'L2ResolverOption' });
export type L2ResolverOption = z.output<typeof l2ResolverOptionSchema>;

export const l2ParentSetupSchema = z
  .object({
    network: z.enum(L2_NETWORK_NAMES).meta({ description: 'The L2 its subnames live on.' }),
    registry: z.string().meta({ description: 'Its L2Registry there.' }),
    options: z.array(l2ResolverOptionSchema),
  })
  .meta({ id: 'L2ParentSetup' });
export type L2ParentSetup = z.output<typeof l2ParentSetupSchema>;

export const parentSetupSchema = z
  .object({
    parentName: z.string(),
    network: offchainNetwork,
    controller: z.string().nullable().meta({ description: 'Who controls the name on chain; null: nobody.' }),
    wrapped: z.boolean(),
    resolver: z.string().nullable().meta({ description: 'The resolver set on the name; null: none.' }),
    resolverIsOurs: z.boolean(),
    ready: z.boolean().meta({ description: 'true: its subnames resolve through this service already.' }),
    steps: z.array(setupStepSchema).meta({
      description:
        'Transactions the controller sends, in order, to become ready; [] when ready or an L2 parent.',
    }),
    l2: l2ParentSetupSchema.nullable().meta({
      description:
        'For a parent whose subnames live on one of our L2 registries: the two L1 resolvers it may choose ' +
        '(signed, proven), what each trusts and the steps to each; null for an offchain parent.',
    }),
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
