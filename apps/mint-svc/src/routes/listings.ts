import { authProblems } from '@nrp/auth';
import { getOwner } from '@nrp/chain';
import {
  deleteListingResponseSchema,
  listingParamsSchema,
  listingSchema,
  putListingRequestSchema,
  signedRequestSchema,
  type MintNetwork,
} from '@nrp/api';
import { namehash } from '@nrp/ens';
import { defineRoute } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { MintServiceContext } from '../context';
import { toListingResponse } from '../data/listings';
import { mintProblems } from '../problems';
import { verifySignedRequest, type SignedFields } from '../sign-in';

const path = '/api/v1/listings/:network/:parentName';

/** Sign-in (scope `listing`), then the signer must be the parent's on-chain owner. Returns the signer. */
async function authoriseOwner(
  ctx: MintServiceContext,
  network: MintNetwork,
  parentName: string,
  operation: 'update' | 'delete',
  fields: SignedFields,
): Promise<string> {
  const signIn = await verifySignedRequest(ctx, network, { scope: 'listing', operation, parentName }, fields);
  const net = ctx.networks[network];
  const owner = await getOwner(net.provider, net.config.ens, parentName);
  if (owner === null || owner.toLowerCase() !== signIn.address.toLowerCase()) {
    throw new ProblemError(
      mintProblems.NOT_PARENT_OWNER,
      `${signIn.address} is not the owner of ${parentName} on ${network}${owner ? ` (the owner is ${owner})` : ''}.`,
    );
  }
  return signIn.address;
}

const LISTING_BINDING =
  'Recommended: bind the message to this request (the client helper `listingSignInMessage` does): its URI and only ' +
  'resource are the listing URL `{PUBLIC_BASE_URL}/api/v1/listings/{network}/{parentName}` and its statement names ' +
  'the operation (`update` for PUT, `delete`). A message that lists `Resources`, or whose URI is under ' +
  '`{PUBLIC_BASE_URL}/api/v1/`, is bound: it must name this listing (and, in its statement or as a `#update`/' +
  '`#delete` fragment, this operation), otherwise 401 `RESOURCE_MISMATCH` and the nonce stays unused. A message ' +
  'with neither keeps working unbound.';

const signedProblems = [
  ...Object.values(authProblems),
  mintProblems.NOT_PARENT_OWNER,
  commonProblems.UPSTREAM_ERROR,
];

export function listingRoutes(ctx: MintServiceContext) {
  return [
    defineRoute({
      method: 'get',
      path,
      operationId: 'getListing',
      summary: 'The listing of a parent name',
      description: 'Listings are public (prices, gates and reserved labels are what minters see anyway).',
      tags: ['listings'],
      params: listingParamsSchema,
      responses: { 200: { description: 'The listing.', schema: listingSchema } },
      problems: [mintProblems.LISTING_NOT_FOUND],
      handler: async ({ params }) => {
        const listing = await ctx.listings.get(params.network, params.parentName);
        if (!listing) {
          throw new ProblemError(
            mintProblems.LISTING_NOT_FOUND,
            `${params.parentName} is not listed on ${params.network}.`,
          );
        }
        return toListingResponse(listing);
      },
    }),
    defineRoute({
      method: 'put',
      path,
      operationId: 'putListing',
      security: 'signIn',
      summary: 'Create or replace the listing of a parent name',
      description:
        "Signed by the parent's current on-chain owner (NameWrapper owner when wrapped) with an EIP-4361 message " +
        "whose nonce has scope `listing` (POST /api/v1/auth/nonce) and whose chain id is the network's. The whole " +
        'listing is replaced; `paymentReceiver` defaults to the signer. 201 when created, 200 when replaced. The ' +
        'parent must also approve the mint controller (registry or NameWrapper `setApprovalForAll`) for mints to ' +
        'succeed on-chain. ' +
        LISTING_BINDING,
      tags: ['listings'],
      params: listingParamsSchema,
      body: putListingRequestSchema,
      responses: {
        200: { description: 'Replaced.', schema: listingSchema },
        201: { description: 'Created.', schema: listingSchema },
      },
      problems: signedProblems,
      handler: async ({ params, body }, _req, res) => {
        const signer = await authoriseOwner(ctx, params.network, params.parentName, 'update', body);
        const { listing, created } = await ctx.listings.upsert(
          {
            network: params.network,
            parentName: params.parentName,
            parentNode: namehash(params.parentName),
            settings: { ...body.listing, paymentReceiver: body.listing.paymentReceiver ?? signer },
            listedBy: signer,
            source: 'api',
          },
          new Date(ctx.now()),
        );
        res.status(created ? 201 : 200).json(toListingResponse(listing));
      },
    }),
    defineRoute({
      method: 'delete',
      path,
      operationId: 'deleteListing',
      security: 'signIn',
      summary: 'Remove the listing of a parent name',
      description:
        'Signed like PUT (a bound message names the operation `delete`). Minting stops at once; signatures already ' +
        'handed out stay valid on-chain until their `signatureExpiry`.',
      tags: ['listings'],
      params: listingParamsSchema,
      body: signedRequestSchema,
      responses: { 200: { description: 'Removed.', schema: deleteListingResponseSchema } },
      problems: [...signedProblems, mintProblems.LISTING_NOT_FOUND],
      handler: async ({ params, body }) => {
        await authoriseOwner(ctx, params.network, params.parentName, 'delete', body);
        const removed = await ctx.listings.remove(params.network, params.parentName);
        if (!removed) {
          throw new ProblemError(
            mintProblems.LISTING_NOT_FOUND,
            `${params.parentName} is not listed on ${params.network}.`,
          );
        }
        return {
          network: params.network,
          parentName: params.parentName,
          deletedAt: new Date(ctx.now()).toISOString(),
        };
      },
    }),
  ];
}
