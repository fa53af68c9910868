import { namehashFromTokenId, type AnyNetworkName } from '@nrp/ens';
import { avatarSource, resolveAvatar, type AvatarDeps } from '../avatars/avatars';
import type { MetadataContext } from '../context';
import { contentEtag } from '../images/http';
import { lookupContractToken, tokenContract } from './contract-tokens';
import { TEMPLATE_VERSION } from './render';
import { nameKeyOf, type RenderedImage } from './token-cache';
import { lookupToken, networkOfChain } from './token-lookup';
import { buildMetadata, type TokenMetadataBody, type TokenName } from './token-metadata';

/** What the token capability uses of the service: the avatars' dependencies, and its own caches and renderer. */
export type TokenDeps = AvatarDeps &
  Pick<MetadataContext, 'offchain' | 'tokenCache' | 'nameRenderer' | 'l2Networks' | 'l2ParentNames'>;

/** One token as a request names it: how its name is found, under which cache keys, and its image's URL. */
export interface TokenRequest {
  /** The name cache's key of the token (its path: chain, or network and contract; and namehash). */
  nameKey: string;
  /** The image cache's key of the request URL. */
  requestKey: string;
  imageUrl: string;
  lookup: () => Promise<TokenName>;
}

/** `/metadata/network/{chainId}/token/{tokenId}`: NameWrapper or offchain name of an L1 (404 UNSUPPORTED_CHAIN). */
export function chainToken(ctx: TokenDeps, chainId: string, tokenId: string): TokenRequest {
  const access = networkOfChain(ctx, chainId);
  const node = namehashFromTokenId(tokenId);
  return {
    nameKey: nameKeyOf(access.name, node),
    requestKey: `${chainId}/${tokenId}`,
    imageUrl: `${ctx.config.PUBLIC_BASE_URL}/metadata/network/${chainId}/token/${tokenId}/image.png`,
    lookup: () => lookupToken(ctx, access, node),
  };
}

/** `/{network}/{contractAddress}/{tokenId}`: an L1 NameWrapper token or an L2 registry token (404 UNKNOWN_CONTRACT). */
export function contractToken(
  ctx: TokenDeps,
  network: AnyNetworkName,
  contractAddress: string,
  tokenId: string,
): TokenRequest {
  const contract = tokenContract(ctx, network, contractAddress);
  const node = namehashFromTokenId(tokenId);
  const path = `${network}/${contractAddress.toLowerCase()}`;
  return {
    nameKey: `${path}:${node}`,
    requestKey: `${path}/${tokenId}`,
    imageUrl: `${ctx.config.PUBLIC_BASE_URL}/${network}/${contractAddress}/${tokenId}/image`,
    lookup: () => lookupContractToken(ctx, contract, node),
  };
}

/** The name behind a token (404 TOKEN_NOT_FOUND, 410 NAME_EXPIRED), cached. */
function tokenName(ctx: TokenDeps, token: TokenRequest): Promise<TokenName> {
  return ctx.tokenCache.name(token.nameKey, token.lookup);
}

/** The ERC-721/1155 metadata of a token; `background_image` when the name's header resolves to an image. */
export async function tokenMetadata(ctx: TokenDeps, token: TokenRequest): Promise<TokenMetadataBody> {
  const { PUBLIC_BASE_URL, NAME_URL_BASE } = ctx.config;
  const found = await tokenName(ctx, token);
  const header = await resolveAvatar(ctx, { network: found.network, name: found.name, kind: 'header' });
  return buildMetadata(found, {
    image: token.imageUrl,
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
export async function tokenImage(ctx: TokenDeps, token: TokenRequest): Promise<RenderedImage> {
  const cache = ctx.tokenCache;
  let image = cache.imageOfRequest(token.requestKey);
  if (!image) {
    const found = await tokenName(ctx, token);
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
    cache.rememberImageOfRequest(token.requestKey, image);
  }
  return image;
}
