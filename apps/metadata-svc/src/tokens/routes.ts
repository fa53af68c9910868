import { tokenMetadataSchema, tokenParamsSchema } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MetadataContext } from '../context';
import { problems } from '../problems';
import { tokenImage, tokenMetadata } from './tokens';

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
      budget: { bodyBytes: 0, answerBytes: 16 * 1024, timeMs: 30_000 },
      summary: 'ERC-721/1155 metadata of a name token',
      description:
        'ENS-metadata-service shape (version 2). `tokenId` is the uint256 of the namehash (decimal or 0x-hex). ' +
        'The name comes from NameWrapper `names(node)` on that chain, else from the offchain subname service by ' +
        'namehash; unknown → 404 `TOKEN_NOT_FOUND`, a wrapped name past its NameWrapper expiry → 410 ' +
        '`NAME_EXPIRED`. Unnormalised names are shown as `[0x1234...abcd].eth` with `is_normalized: false` and ' +
        '`url: null`. `Created Date` is given where known (offchain records); wrapped names carry fuse states, ' +
        'wrapper state and expiry. `background_image` is `{PUBLIC_BASE_URL}/{network}/header/{name}` when the ' +
        "name's header record resolves to an image (any ENSIP-12 kind, or an upload of this service).",
      tags: ['metadata'],
      params: tokenParamsSchema,
      responses: { 200: { description: 'Token metadata', schema: tokenMetadataSchema } },
      problems: tokenProblems,
      handler: async ({ params }, _req, res) => {
        const body = await tokenMetadata(ctx, params.chainId, params.tokenId);
        res.setHeader('Cache-Control', 'public, max-age=60');
        return body;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metadata/network/:chainId/token/:tokenId/image.png',
      operationId: 'getTokenImage',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: 'Image of a name token (PNG)',
      description:
        'A 270×270 PNG rendered from an SVG template: the name (long names shortened in the middle, emoji drawn ' +
        'with the Noto Emoji font bundled from npm) over a gradient, or over the resolved avatar of the name (any ' +
        'ENSIP-12 kind, as `/{network}/avatar/{name}` serves it). Cached by ' +
        'content (name, avatar bytes, template version); the `ETag` is that content hash. The avatar is drawn ' +
        'within the image budget (MAX_IMAGE_PIXELS, IMAGE_WORK_TIMEOUT_MS; one that exceeds it, or a hostile ' +
        'NFT answer, gives the plain card) and a render waits for an IMAGE_WORK_CONCURRENCY slot (503 with ' +
        '`Retry-After` when IMAGE_WORK_QUEUE_MAX are waiting). A new avatar shows ' +
        'at once on the replica that took the upload and within METADATA_CACHE_TTL_MS + AVATAR_CACHE_TTL_MS on ' +
        'the others.',
      tags: ['metadata'],
      params: tokenParamsSchema,
      responses: {
        200: { description: 'PNG image', contentType: 'image/png' },
        304: { description: 'Not modified' },
      },
      problems: tokenProblems,
      handler: async ({ params }, req, res) => {
        const image = await tokenImage(ctx, params.chainId, params.tokenId);
        res.setHeader('Content-Type', 'image/png');
        res.setHeader('ETag', image.etag);
        res.setHeader('Cache-Control', 'public, max-age=60');
        if (req.fresh) {
          res.status(304).end();
          return;
        }
        res.status(200).send(image.png);
      },
    }),
  ];
}
