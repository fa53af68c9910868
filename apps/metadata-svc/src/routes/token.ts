import { LRUCache } from 'lru-cache';
import { tokenMetadataSchema, tokenParamsSchema } from '@nrp/api';
import type { NetworkName } from '@nrp/chain';
import { namehashFromTokenId } from '@nrp/ens';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { Avatars } from '../avatars';
import type { MetadataContext } from '../context';
import { problems } from '../problems';
import { renderNameImage, TEMPLATE_VERSION } from '../render';
import { buildMetadata, contentEtag, lookupToken, networkOfChain, type TokenName } from '../token-metadata';

export interface TokenCaches {
  /** Drops what is cached about one name (its images changed). */
  invalidate(network: NetworkName, node: string): void;
}

interface RenderedImage {
  etag: string;
  png: Buffer;
  /** `network:node` of the name. */
  key: string;
}

export function tokenRoutes(
  ctx: MetadataContext,
  avatars: Avatars,
): { routes: RouteDefinition[]; caches: TokenCaches } {
  const ttl = ctx.config.METADATA_CACHE_TTL_MS;
  const enabled = ttl > 0;
  // Process-memory caches only (each replica has its own; they expire after METADATA_CACHE_TTL_MS).
  const tokens = new LRUCache<string, TokenName>({ max: 10_000, ttl: Math.max(ttl, 1) });
  const images = new LRUCache<string, RenderedImage>({ max: 1_000, ttl: Math.max(ttl, 1) });
  // Content-addressed: same name + same avatar bytes + same template = same PNG, whatever the token.
  const rendered = new LRUCache<string, Buffer>({
    max: 500,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (b) => b.length,
  });

  const keyOf = (network: NetworkName, node: string) => `${network}:${node.toLowerCase()}`;
  // image.png by request URL (`chainId/tokenId` as sent).
  const byRequest = new LRUCache<string, RenderedImage>({ max: 5_000, ttl: Math.max(ttl, 1) });

  async function token(chainId: string, tokenId: string): Promise<TokenName> {
    const access = networkOfChain(ctx, chainId);
    const node = namehashFromTokenId(tokenId);
    const key = keyOf(access.name, node);
    const cached = enabled ? tokens.get(key) : undefined;
    if (cached) return cached;
    const found = await lookupToken(ctx, access, node);
    if (enabled) tokens.set(key, found);
    return found;
  }

  const imageUrl = (chainId: string, tokenId: string) =>
    `${ctx.config.PUBLIC_BASE_URL}/metadata/network/${chainId}/token/${tokenId}/image.png`;

  const tokenProblems = [
    commonProblems.INVALID_INPUT,
    problems.UNSUPPORTED_CHAIN,
    problems.TOKEN_NOT_FOUND,
    problems.NAME_EXPIRED,
    commonProblems.UPSTREAM_ERROR,
  ];

  const routes = [
    defineRoute({
      method: 'get',
      path: '/metadata/network/:chainId/token/:tokenId',
      operationId: 'getTokenMetadata',
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
      handler: async ({ params }, req, res) => {
        const found = await token(params.chainId, params.tokenId);
        const header = await avatars.resolve(found.network, found.name, 'header');
        const body = buildMetadata(found, {
          image: imageUrl(params.chainId, params.tokenId),
          nameUrlBase: ctx.config.NAME_URL_BASE,
          ...(header?.ok
            ? {
                headerUrl: `${ctx.config.PUBLIC_BASE_URL}/${found.network}/header/${encodeURIComponent(found.name)}`,
              }
            : {}),
        });
        res.setHeader('Cache-Control', 'public, max-age=60');
        return body;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metadata/network/:chainId/token/:tokenId/image.png',
      operationId: 'getTokenImage',
      summary: 'Image of a name token (PNG)',
      description:
        'A 270×270 PNG rendered from an SVG template: the name (long names shortened in the middle, emoji drawn ' +
        'with the Noto Emoji font bundled from npm) over a gradient, or over the resolved avatar of the name (any ' +
        'ENSIP-12 kind, as `/{network}/avatar/{name}` serves it). Cached by ' +
        'content (name, avatar bytes, template version); the `ETag` is that content hash. A new avatar shows ' +
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
        // Fast path: the same request URL seen within the TTL needs no token lookup at all.
        const requestKey = `${params.chainId}/${params.tokenId}`;
        let image = enabled ? byRequest.get(requestKey) : undefined;
        if (!image) {
          const found = await token(params.chainId, params.tokenId);
          const key = keyOf(found.network, found.node);
          image = enabled ? images.get(key) : undefined;
          if (!image) image = await renderFor(found, key);
          if (enabled) byRequest.set(requestKey, image);
        }
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

  async function renderFor(found: TokenName, key: string): Promise<RenderedImage> {
    // The resolved avatar of any kind (upload, URL, NFT); without one (or when it gives no image) the plain card.
    const avatar = await avatars.sourceOf(found.network, found.name, 'avatar');
    const etag = contentEtag(TEMPLATE_VERSION, found.name, avatar?.hash ?? '');
    let png = rendered.get(etag);
    if (!png) {
      png = await renderNameImage(found.name, avatar?.bytes);
      rendered.set(etag, png);
    }
    const image = { etag, png, key };
    if (enabled) images.set(key, image);
    return image;
  }

  return {
    routes,
    caches: {
      invalidate(network, node) {
        const key = keyOf(network, node);
        images.delete(key);
        for (const [requestKey, image] of byRequest.entries()) {
          if (image.key === key) byRequest.delete(requestKey);
        }
      },
    },
  };
}
