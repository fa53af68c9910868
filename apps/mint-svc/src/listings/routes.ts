import { authProblems, SIGN_IN_BINDING_RULE } from '@nrp/auth';
import {
  deleteListingResponseSchema,
  listingParamsSchema,
  listingSchema,
  putListingRequestSchema,
  signedRequestSchema,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MintContext } from '../context';
import { mintProblems } from '../problems';
import { deleteListing, getListing, putListing } from './listings';

const path = '/api/v1/listings/:network/:parentName';

const LISTING_BINDING =
  'Recommended: bind the message to this request (the client helper `listingSignInMessage` does): its URI and only ' +
  'resource are the listing URL `{PUBLIC_BASE_URL}/api/v1/listings/{network}/{parentName}` and its statement names ' +
  'the operation (`update` for PUT, `delete`). ' +
  SIGN_IN_BINDING_RULE;

const L2_LISTINGS =
  ' `network` may be an L2 (`base`, `base-sepolia`): the parent must then be served by one of the configured ' +
  'L2MintControllers (its L2Registry has this parent name), else 404 `L2_PARENT_NOT_SERVED`; the listing answers ' +
  '`type: "L2"` and `l2Metadata` (the L2, its chain id, the parent\'s registry and controller). Its owner is the ' +
  "parent's owner on the L1 the L2 settles on (base: mainnet, base-sepolia: sepolia), whose chain id sign-in " +
  'messages carry. An L1 listing answers `type: "L1"`, `l2Metadata: null`.';

const signedProblems = [
  ...Object.values(authProblems),
  mintProblems.NOT_PARENT_OWNER,
  mintProblems.L2_PARENT_NOT_SERVED,
  commonProblems.UPSTREAM_ERROR,
];

export function listingRoutes(ctx: MintContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path,
      operationId: 'getListing',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      summary: 'The listing of a parent name',
      description:
        'Listings are public (prices, gates and reserved labels are what minters see anyway). A listing made through ' +
        'the API lapses once its signer no longer owns the parent (one owner read): 404 here as for estimates and ' +
        'mints, until the new owner lists the name again.' +
        L2_LISTINGS,
      tags: ['listings'],
      params: listingParamsSchema,
      responses: { 200: { description: 'The listing.', schema: listingSchema } },
      problems: [
        mintProblems.LISTING_NOT_FOUND,
        mintProblems.L2_PARENT_NOT_SERVED,
        commonProblems.UPSTREAM_ERROR,
      ],
      handler: ({ params }) => getListing(ctx, params),
    }),
    defineRoute({
      method: 'put',
      path,
      operationId: 'putListing',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 30_000 },
      security: 'signIn',
      summary: 'Create or replace the listing of a parent name',
      description:
        "Signed by the parent's current on-chain owner (NameWrapper owner when wrapped) with an EIP-4361 message " +
        "whose nonce has scope `listing` (POST /api/v1/auth/nonce) and whose chain id is the network's. The whole " +
        'listing is replaced; `paymentReceiver` defaults to the signer. 201 when created, 200 when replaced. The ' +
        'parent must also approve the mint controller (registry or NameWrapper `setApprovalForAll`) for mints to ' +
        'succeed on-chain (on an L2: its L2Registry `setController(<L2MintController>, true)`). ' +
        LISTING_BINDING +
        L2_LISTINGS,
      tags: ['listings'],
      params: listingParamsSchema,
      body: putListingRequestSchema,
      responses: {
        200: { description: 'Replaced.', schema: listingSchema },
        201: { description: 'Created.', schema: listingSchema },
      },
      problems: signedProblems,
      handler: async ({ params, body }, _req, res) => {
        const { listing, created } = await putListing(ctx, params, body.listing, body);
        res.status(created ? 201 : 200);
        return listing;
      },
    }),
    defineRoute({
      method: 'delete',
      path,
      operationId: 'deleteListing',
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
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
      handler: ({ params, body }) => deleteListing(ctx, params, body),
    }),
  ];
}
