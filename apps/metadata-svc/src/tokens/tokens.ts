import { namehashFromTokenId } from '@nrp/ens';
import { avatarSource, resolveAvatar, type AvatarDeps } from '../avatars/avatars';
import type { MetadataContext } from '../context';
import { contentEtag } from '../images/http';
import { TEMPLATE_VERSION } from './render';
import { nameKeyOf, type RenderedImage } from './token-cache';
import { lookupToken, networkOfChain } from './token-lookup';
import { buildMetadata, type TokenMetadataBody, type TokenName } from './token-metadata';

/** What the token capability uses of the service: the avatars' dependencies, and its own caches and renderer. */
export type TokenDeps = AvatarDeps & Pick<MetadataContext, 'offchain' | 'tokenCache' | 'nameRenderer'>;

/** The name behind token `tokenId` of chain `chainId` (404 UNSUPPORTED_CHAIN / TOKEN_NOT_FOUND), cached. */
function tokenName(ctx: TokenDeps, chainId: string, tokenId: string): Promise<TokenName> {
  const access = networkOfChain(ctx, chainId);
  const node = namehashFromTokenId(tokenId);
  return ctx.tokenCache.name(nameKeyOf(access.name, node), () => lookupToken(ctx, access, node));
}

/** The ERC-721/1155 metadata of a token; `background_image` when the name's header resolves to an image. */
export async function tokenMetadata(
  ctx: TokenDeps,
  chainId: string,
  tokenId: string,
): Promise<TokenMetadataBody> {
  const { PUBLIC_BASE_URL, NAME_URL_BASE } = ctx.config;
  const found = await tokenName(ctx, chainId, tokenId);
  const header = await resolveAvatar(ctx, { network: found.network, name: found.name, kind: 'header' });
  return buildMetadata(found, {
    image: `${PUBLIC_BASE_URL}/metadata/network/${chainId}/token/${tokenId}/image.png`,
    nameUrlBase: NAME_URL_BASE,
    ...(header?.ok
      ? { headerUrl: `${PUBLIC_BASE_URL}/${found.network}/header/${encodeURIComponent(found.name)}` }
      : {}),
  });
}

/**
 * The PNG of a token: the name over its resolved avatar (any kind, as `/{network}/avatar/{name}` serves it), or the
 * plain card without one. A request URL seen within the TTL needs no token lookup at all.
 */
export async function tokenImage(ctx: TokenDeps, chainId: string, tokenId: string): Promise<RenderedImage> {
  const cache = ctx.tokenCache;
  const requestKey = `${chainId}/${tokenId}`;
  let image = cache.imageOfRequest(requestKey);
  if (!image) {
    const found = await tokenName(ctx, chainId, tokenId);
    const key = nameKeyOf(found.network, found.node);
    image = cache.imageOfName(key);
    if (!image) {
      const avatar = await avatarSource(ctx, { network: found.network, name: found.name, kind: 'avatar' });
      const etag = contentEtag(TEMPLATE_VERSION, found.name, avatar?.hash ?? '');
      const render = () =>
        ctx.imageWork.run(() => ctx.nameRenderer.render(found.name, ctx.imageBudget, avatar));
      image = { etag, key, png: await cache.png(etag, render) };
      cache.rememberImageOfName(image);
    }
    cache.rememberImageOfRequest(requestKey, image);
  }
  return image;
}
