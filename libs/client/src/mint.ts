/** Typed client of the mint service. Amounts are wei as decimal strings; times are Unix seconds. */
import { requestJson, type ClientOptions } from './http';
import type {
  DeleteListingResponse,
  Listing,
  MintEstimateQuery,
  MintEstimateResponse,
  MintNetwork,
  MintNonceRequest,
  MintNonceResponse,
  MintRequest,
  MintResponse,
  NamesPage,
  NamesQuery,
  PutListingRequest,
  VerifiedMinter,
  VerifyMinterRequest,
} from '@nrp/api/mint';
import type { SignedRequest } from '@nrp/api/signed-request';
import { settlementOf, type NetworkName } from '@nrp/ens';
import { boundSignInMessage, NETWORK_CHAIN_IDS } from './sign-in-message';

export type {
  DeleteListingResponse,
  Listing,
  ListingInput,
  MintEstimateQuery,
  MintEstimateResponse,
  MintNetwork,
  MintNonceRequest,
  MintNonceResponse,
  MintRequest,
  MintResponse,
  MintValidationError,
  MintedName,
  NamesPage,
  NamesQuery,
  PutListingRequest,
  VerifiedMinter,
  VerifyMinterRequest,
} from '@nrp/api/mint';
export type { SignedRequest } from '@nrp/api/signed-request';
export * from './http';
export * from './sign-in-message';

function listingPath(network: MintNetwork, parentName: string): string {
  return `/api/v1/listings/${network}/${encodeURIComponent(parentName)}`;
}

interface MintSignInInput {
  /** The mint service's public base URL (its `PUBLIC_BASE_URL`): the message names the request under it. */
  serviceUrl: string;
  /** One of the service's `SIWE_DOMAINS`, usually the page's `location.host`. */
  domain: string;
  address: string;
  /** From `requestMintNonce`, with the scope of the operation (`listing` or `minter`). */
  nonce: string;
  issuedAt?: Date;
  /** Default: ten minutes after `issuedAt`. */
  expirationTime?: Date;
}

export interface ListingSignInInput extends MintSignInInput {
  /** The listing's network; an L2 listing is signed with the chain id of the L1 it settles on. */
  network: MintNetwork;
  parentName: string;
  /** `update` for PUT, `delete` for DELETE. */
  operation: 'update' | 'delete';
}

const baseUrlOf = (serviceUrl: string): string => serviceUrl.replace(/\/+$/, '');

/** The EIP-4361 message for one PUT or DELETE of a listing, bound to the listing's URL and the operation. */
export function listingSignInMessage(input: ListingSignInInput): string {
  const verb = input.operation === 'update' ? 'Update' : 'Delete';
  return boundSignInMessage({
    ...input,
    url: `${baseUrlOf(input.serviceUrl)}${listingPath(input.network, input.parentName)}`,
    statement: `${verb} the listing of ${input.parentName} on ${input.network}.`,
    chainId: NETWORK_CHAIN_IDS[settlementOf(input.network)],
  });
}

/** The EIP-4361 message for `verifyMinter`, bound to the verification route and the operation `verify`. */
export function minterSignInMessage(input: MintSignInInput & { network: NetworkName }): string {
  return boundSignInMessage({
    ...input,
    url: `${baseUrlOf(input.serviceUrl)}/api/v1/minters/verify`,
    statement: `Verify ${input.address} as a minter on ${input.network}.`,
    chainId: NETWORK_CHAIN_IDS[input.network],
  });
}

export interface MintClient {
  /** `GET /api/v1/mint/estimate` */
  getMintEstimate(query: MintEstimateQuery): Promise<MintEstimateResponse>;
  /** `POST /api/v1/mint`: the signed mint parameters to send to the controller. */
  requestMint(body: MintRequest): Promise<MintResponse>;
  /** `POST /api/v1/auth/nonce` */
  requestMintNonce(body: MintNonceRequest): Promise<MintNonceResponse>;
  /** `POST /api/v1/minters/verify` */
  verifyMinter(body: VerifyMinterRequest): Promise<VerifiedMinter>;
  /** `GET /api/v1/listings/{network}/{parentName}` */
  getListing(network: MintNetwork, parentName: string): Promise<Listing>;
  /** `PUT /api/v1/listings/{network}/{parentName}` */
  putListing(network: MintNetwork, parentName: string, body: PutListingRequest): Promise<Listing>;
  /** `DELETE /api/v1/listings/{network}/{parentName}` */
  deleteListing(
    network: MintNetwork,
    parentName: string,
    body: SignedRequest,
  ): Promise<DeleteListingResponse>;
  /** `GET /api/v1/names`: one page of the names minted through the controller (pass `nextCursor` as `cursor`). */
  listNames(query: NamesQuery): Promise<NamesPage>;
}

/** Typed client of the mint service. Failures throw ServiceError with the problem's `code`. */
export function createMintClient(options: ClientOptions): MintClient {
  return {
    getMintEstimate: (query) =>
      requestJson(options, 'getMintEstimate', '/api/v1/mint/estimate', { query: { ...query } }),
    requestMint: (body) => requestJson(options, 'requestMint', '/api/v1/mint', { method: 'POST', body }),
    requestMintNonce: (body) =>
      requestJson(options, 'requestMintNonce', '/api/v1/auth/nonce', { method: 'POST', body }),
    verifyMinter: (body) =>
      requestJson(options, 'verifyMinter', '/api/v1/minters/verify', { method: 'POST', body }),
    getListing: (network, parentName) => requestJson(options, 'getListing', listingPath(network, parentName)),
    putListing: (network, parentName, body) =>
      requestJson(options, 'putListing', listingPath(network, parentName), { method: 'PUT', body }),
    deleteListing: (network, parentName, body) =>
      requestJson(options, 'deleteListing', listingPath(network, parentName), { method: 'DELETE', body }),
    listNames: (query) => requestJson(options, 'listNames', '/api/v1/names', { query: { ...query } }),
  };
}
