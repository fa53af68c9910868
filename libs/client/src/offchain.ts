/** Typed client of the offchain subname service. */
import { requestJson, type ClientOptions } from './http';
import { offchainBulkMethods, type OffchainBulkMethods } from './offchain-bulk';
import { offchainSelfServeMethods, type OffchainSelfServeMethods } from './offchain-self-serve';
import { offchainWebhookMethods, type OffchainWebhookMethods } from './offchain-webhooks';
import type {
  CreateSubnameInput,
  OffchainSubname,
  SearchSubnamesInput,
  SearchSubnamesResult,
} from '@nrp/api/offchain';

export type {
  CreateSubnameInput,
  OffchainSubname,
  SearchSubnamesInput,
  SearchSubnamesResult,
} from '@nrp/api/offchain';
export * from './http';
export { toCreateSubnameInput, type OffchainBulkMethods } from './offchain-bulk';
export type { OffchainWebhookMethods } from './offchain-webhooks';
export {
  sessionSignInMessage,
  type ApiKey,
  type CreatedKey,
  type CreateKeyInput,
  type CreateSessionInput,
  type L2ParentSetup,
  type L2ResolverOption,
  type OffchainSelfServeMethods,
  type ParentSetup,
  type Session,
  type SessionSignInInput,
  type SetupStep,
} from './offchain-self-serve';
export type { BulkSubnamesResult } from '@nrp/api/offchain-bulk';
export type {
  CreatedWebhook,
  CreateWebhookInput,
  PlatformEvent,
  Webhook,
  WebhookDeliveries,
  WebhookDelivery,
  WebhookEventType,
} from '@nrp/api/offchain-webhooks';

export interface OffchainClient
  extends OffchainBulkMethods, OffchainWebhookMethods, OffchainSelfServeMethods {
  /** Creates or updates a subname (the key in `x-auth-token` must be valid for its parent). */
  createOrUpdateSubname(input: CreateSubnameInput, apiKey: string): Promise<OffchainSubname>;
  getSubname(fullName: string): Promise<OffchainSubname>;
  getSubnameByNamehash(namehash: string): Promise<OffchainSubname>;
  searchSubnames(input: SearchSubnamesInput): Promise<SearchSubnamesResult>;
  deleteSubname(fullName: string, apiKey: string): Promise<void>;
}

/** Typed client of the offchain subname service. Failures throw ServiceError with the problem's `code`. */
export function createOffchainClient(options: ClientOptions): OffchainClient {
  const subnamePath = (fullName: string) => `/api/v1/subnames/${encodeURIComponent(fullName)}`;
  return {
    ...offchainBulkMethods(options),
    ...offchainWebhookMethods(options),
    ...offchainSelfServeMethods(options),
    createOrUpdateSubname: (input, apiKey) =>
      requestJson(options, 'createOrUpdateSubname', '/api/v1/subnames', {
        method: 'POST',
        body: input,
        headers: { 'x-auth-token': apiKey },
      }),
    getSubname: (fullName) => requestJson(options, 'getSubname', subnamePath(fullName)),
    getSubnameByNamehash: (namehash) =>
      requestJson(
        options,
        'getSubnameByNamehash',
        `/api/v1/subnames/namehash/${encodeURIComponent(namehash)}`,
      ),
    searchSubnames: (input) =>
      requestJson(options, 'searchSubnames', '/api/v1/subnames/search', { method: 'POST', body: input }),
    deleteSubname: (fullName, apiKey) =>
      requestJson(options, 'deleteSubname', subnamePath(fullName), {
        method: 'DELETE',
        headers: { 'x-auth-token': apiKey },
      }),
  };
}
