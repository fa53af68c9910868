import type { Request, RequestHandler, Response } from 'express';
import { contractTokenParamsSchema, tokenMetadataSchema, tokenParamsSchema } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MetadataContext } from '../context';
import { problems } from '../problems';
import {
  chainToken,
  contractToken,
  tokenImage,
  tokenMetadata,
  type TokenDeps,
  type TokenRequest,
} from './tokens';

const METADATA_BUDGET = { bodyBytes: 0, answerBytes: 16 * 1024, timeMs: 30_000 };
const IMAGE_BUDGET = { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 };
const METADATA_RESPONSES = { 200: { description: 'Token metadata', schema: tokenMetadataSchema } };
const IMAGE_RESPONSES = {
  200: { description: 'PNG image', contentType: 'image/png' },
  304: { description: 'Not modified' },
};

const METADATA_SHAPE =
  'ENS-metadata-service shape (version 2). `tokenId` is the uint256 of the namehash (decimal or 0x-hex). ' +
  'Unnormalised names are shown as `[0x1234...abcd].eth` with `is_normalized: false` and `url: null`. ' +
  "`background_image` is `{PUBLIC_BASE_URL}/{network}/header/{name}` when the name's header record resolves to " +
  'an image (any ENSIP-12 kind, or an upload of this service).';

const IMAGE_DESCRIPTION =
  'A 270×270 PNG rendered from an SVG template: the name (long names shortened in the middle, emoji drawn ' +
  'with the Noto Emoji font bundled from npm) over a gradient, or over the resolved avatar of the name (any ' +
  'ENSIP-12 kind, as `/{network}/avatar/{name}` serves it). Cached by ' +
  'content (name, avatar bytes, template version); the `ETag` is that content hash. The avatar is drawn ' +
  'within the image budget (MAX_IMAGE_PIXELS, IMAGE_WORK_TIMEOUT_MS; one that exceeds it, or a hostile ' +
  'NFT answer, gives the plain card) and a render waits for an IMAGE_WORK_CONCURRENCY slot (503 with ' +
  '`Retry-After` when IMAGE_WORK_QUEUE_MAX are waiting). A new avatar shows ' +
  'at once on the replica that took the upload and within METADATA_CACHE_TTL_MS + AVATAR_CACHE_TTL_MS on ' +
  'the others.';

/** Answers the PNG of a token, or 304 when the client holds it. */
async function sendTokenImage(
  ctx: TokenDeps,
  token: TokenRequest,
  req: Request,
  res: Response,
): Promise<void> {
  const image = await tokenImage(ctx, token);
  res.setHeader('Content-Type', 'image/png');
  res.setHeader('ETag', image.etag);
  res.setHeader('Cache-Control', 'public, max-age=60');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.status(200).send(image.png);
}

/**
 * Leaves a path whose second segment is no contract address (`/no/such/route`) to the routes after this one and so
 * to 404 NOT_FOUND, as the ENS metadata service's `:contractAddress(0x…)` does; a `0x…` segment is this route's (a
 * malformed address, or an unknown network, is then 400).
 */
const contractAddressPathsOnly: RequestHandler = (req, _res, next) => {
  next(/^0x/i.test(String(req.params.contractAddress)) ? undefined : 'route');
};

/** `/metadata/network/{chainId}/token/{tokenId}` and its image.png: the L1 tokens, by chain id. */
export function tokenRoutes(ctx: MetadataContext): RouteDefinition[] {
  const tokenProblems = [
    commonProblems.INVALID_INPUT,
    problems.UNSUPPORTED_CHAIN,
    problems.TOKEN_NOT_FOUND,
    problems.NAME_EXPIRED,
    commonProblems.UPSTREAM_ERROR,
  ];

  return [
    defineRoute({
      method: 'get',
      path: '/metadata/network/:chainId/token/:tokenId',
      operationId: 'getTokenMetadata',
      budget: METADATA_BUDGET,
      summary: 'ERC-721/1155 metadata of a name token',
      description:
        `${METADATA_SHAPE} The name comes from NameWrapper \`names(node)\` on that chain (1 or 11155111), else ` +
        'from the offchain subname service by namehash; unknown → 404 `TOKEN_NOT_FOUND`, a wrapped name past its ' +
        'NameWrapper expiry → 410 `NAME_EXPIRED`. `Created Date` is given where known (offchain records); wrapped ' +
        'names carry fuse states, wrapper state and expiry. L2 tokens (base, base-sepolia) have no chain-id path ' +
        '(an L2 holds one registry per parent): use `/{network}/{contractAddress}/{tokenId}`.',
      tags: ['metadata'],
      params: tokenParamsSchema,
      responses: METADATA_RESPONSES,
      problems: tokenProblems,
      handler: async ({ params }, _req, res) => {
        const body = await tokenMetadata(ctx, chainToken(ctx, params.chainId, params.tokenId));
        res.setHeader('Cache-Control', 'public, max-age=60');
        return body;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metadata/network/:chainId/token/:tokenId/image.png',
      operationId: 'getTokenImage',
      budget: IMAGE_BUDGET,
      summary: 'Image of a name token (PNG)',
      description: IMAGE_DESCRIPTION,
      tags: ['metadata'],
      params: tokenParamsSchema,
      responses: IMAGE_RESPONSES,
      problems: tokenProblems,
      handler: ({ params }, req, res) =>
        sendTokenImage(ctx, chainToken(ctx, params.chainId, params.tokenId), req, res),
    }),
  ];
}

/**
 * `/{network}/{contractAddress}/{tokenId}` and its `/image`, the ENS metadata service's paths: NameWrapper tokens of
 * the L1s and the tokens of the served L2 registries. Registered after the avatar routes, whose
 * `/{network}/avatar/{name}` this path would otherwise take.
 */
export function contractTokenRoutes(ctx: MetadataContext): RouteDefinition[] {
  const tokenProblems = [
    commonProblems.INVALID_INPUT,
    problems.UNKNOWN_CONTRACT,
    problems.TOKEN_NOT_FOUND,
    problems.NAME_EXPIRED,
    commonProblems.UPSTREAM_ERROR,
  ];
  const sources =
    '`network` is `mainnet`, `sepolia`, `base` or `base-sepolia` (anything else → 400 `INVALID_INPUT`). On ' +
    "`mainnet`/`sepolia` the contract is the network's NameWrapper: wrapped names only (no offchain fallback), a " +
    'name past its NameWrapper expiry → 410 `NAME_EXPIRED`. On `base`/`base-sepolia` it is one of the L2Registry ' +
    'contracts of `BASE_L2_REGISTRIES`/`BASE_SEPOLIA_L2_REGISTRIES`: the name is `labels(tokenId)` + "." + the ' +
    "registry's parent name (`parentName()`, read once: immutable), with `Expiration Date` (`expiries(tokenId)`); " +
    'a token that is not live (never registered, revoked or expired: `ownerOf` reverts) → 404 `TOKEN_NOT_FOUND`, ' +
    'as an unknown wrapped token. Any other contract → 404 `UNKNOWN_CONTRACT`. An L2 name resolves on the L1 its ' +
    'L2 settles on (base → mainnet, base-sepolia → sepolia): its avatar and header (the image, ' +
    "`background_image`) are read there, through the parent's resolver. `image` is this service's " +
    '`/{network}/{contractAddress}/{tokenId}/image`. A `contractAddress` segment not starting with `0x` is no ' +
    'path of this route (404 `NOT_FOUND`). Uploads, sign-in and `/{network}/{avatar|header}/{name}` stay L1-only: ' +
    "records live on the L1 (an L2 name's images are uploaded under its L1, its owner being its L2 holder).";

  return [
    defineRoute({
      method: 'get',
      path: '/:network/:contractAddress/:tokenId',
      operationId: 'getContractTokenMetadata',
      budget: METADATA_BUDGET,
      summary: 'ERC-721/1155 metadata of a name token, by network and contract (L1 NameWrapper, L2 registry)',
      description: `${METADATA_SHAPE} ${sources}`,
      tags: ['metadata'],
      params: contractTokenParamsSchema,
      before: [contractAddressPathsOnly],
      responses: METADATA_RESPONSES,
      problems: tokenProblems,
      handler: async ({ params }, _req, res) => {
        const token = contractToken(ctx, params.network, params.contractAddress, params.tokenId);
        const body = await tokenMetadata(ctx, token);
        res.setHeader('Cache-Control', 'public, max-age=60');
        return body;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:network/:contractAddress/:tokenId/image',
      operationId: 'getContractTokenImage',
      budget: IMAGE_BUDGET,
      summary: 'Image of a name token (PNG), by network and contract',
      description: `${IMAGE_DESCRIPTION} The token is found as by \`/{network}/{contractAddress}/{tokenId}\`.`,
      tags: ['metadata'],
      params: contractTokenParamsSchema,
      before: [contractAddressPathsOnly],
      responses: IMAGE_RESPONSES,
      problems: tokenProblems,
      handler: ({ params }, req, res) =>
        sendTokenImage(
          ctx,
          contractToken(ctx, params.network, params.contractAddress, params.tokenId),
          req,
          res,
        ),
    }),
  ];
}
