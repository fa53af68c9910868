/** Self-serve methods of the offchain client: sign-in sessions, API keys of names the address controls, setup. */
import { requestJson, type ClientOptions } from './http';
import { NETWORK_CHAIN_IDS, boundSignInMessage } from './sign-in-message';
import type {
  ApiKey,
  CreatedKey,
  CreateKeyInput,
  CreateSessionInput,
  ParentSetup,
  Session,
} from '@nrp/api/offchain-self-serve';
import type { NetworkName } from '@nrp/ens';

export type {
  ApiKey,
  CreatedKey,
  CreateKeyInput,
  CreateSessionInput,
  L2ParentSetup,
  L2ResolverOption,
  ParentSetup,
  Session,
  SetupStep,
} from '@nrp/api/offchain-self-serve';

export interface SessionSignInInput {
  /** The offchain service's public base URL (its `PUBLIC_BASE_URL`): the message names its session route. */
  serviceUrl: string;
  /** One of the service's `SIWE_DOMAINS`, usually the page's `location.host`. */
  domain: string;
  address: string;
  /** From `requestSessionNonce`. */
  nonce: string;
  /** The network whose chain id the message carries (a contract wallet is checked there). Default mainnet. */
  network?: NetworkName;
  issuedAt?: Date;
  /** Default: ten minutes after `issuedAt`; the session never outlives it. */
  expirationTime?: Date;
}

/** The EIP-4361 message for `signIn`, bound to `{serviceUrl}/api/v1/auth/session`; sign it with the wallet. */
export function sessionSignInMessage(input: SessionSignInInput): string {
  const network = input.network ?? 'mainnet';
  return boundSignInMessage({
    ...input,
    url: `${input.serviceUrl.replace(/\/+$/, '')}/api/v1/auth/session`,
    statement: `Open a session to manage the API keys of the names ${input.address} controls.`,
    chainId: NETWORK_CHAIN_IDS[network],
  });
}

export interface OffchainSelfServeMethods {
  /** `POST /api/v1/auth/nonce`: a single-use nonce for `sessionSignInMessage`. */
  requestSessionNonce(address: string): Promise<{ nonce: string; expiresAt: number }>;
  /** `POST /api/v1/auth/session`: the signed message → a bearer token for the key methods. */
  signIn(input: CreateSessionInput): Promise<Session>;
  /** `DELETE /api/v1/auth/session`: the token is refused from now on. */
  signOut(token: string): Promise<void>;
  /** `POST /api/v1/keys`: a key for a name the signed-in address controls (the key is shown only here). */
  createKey(input: CreateKeyInput, token: string): Promise<CreatedKey>;
  /** `GET /api/v1/keys`: the keys the signed-in address issued, without secrets. */
  listKeys(token: string): Promise<ApiKey[]>;
  /** `DELETE /api/v1/keys/{id}` */
  revokeKey(id: string, token: string): Promise<void>;
  /** `GET /api/v1/parents/{parentName}/setup`: what the name needs on chain, and the transactions to send. */
  parentSetup(parentName: string, network?: NetworkName): Promise<ParentSetup>;
}

export function offchainSelfServeMethods(options: ClientOptions): OffchainSelfServeMethods {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  return {
    requestSessionNonce: (address) =>
      requestJson(options, 'requestSessionNonce', '/api/v1/auth/nonce', {
        method: 'POST',
        body: { address },
      }),
    signIn: (input) =>
      requestJson(options, 'signIn', '/api/v1/auth/session', { method: 'POST', body: input }),
    signOut: async (token) => {
      await requestJson(options, 'signOut', '/api/v1/auth/session', {
        method: 'DELETE',
        headers: bearer(token),
      });
    },
    createKey: (input, token) =>
      requestJson(options, 'createKey', '/api/v1/keys', {
        method: 'POST',
        body: input,
        headers: bearer(token),
      }),
    listKeys: async (token) =>
      (
        await requestJson<{ items: ApiKey[] }>(options, 'listKeys', '/api/v1/keys', {
          headers: bearer(token),
        })
      ).items,
    revokeKey: async (id, token) => {
      await requestJson(options, 'revokeKey', `/api/v1/keys/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        headers: bearer(token),
      });
    },
    parentSetup: (parentName, network) =>
      requestJson(options, 'parentSetup', `/api/v1/parents/${encodeURIComponent(parentName)}/setup`, {
        query: { network },
      }),
  };
}
