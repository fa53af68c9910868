import { getAddress } from 'ethers';
import {
  callView,
  erc1155Interface,
  erc721Interface,
  NoValue,
  parseOutboundJson,
  type NetworkName,
} from '@nrp/chain';
import type { NetworkAccess } from '../names/ens-state';
import {
  AvatarUnavailableError,
  metadataImageUri,
  substituteErc1155Id,
  uriTarget,
  type ContentGateways,
  type NftReference,
  type UriTarget,
} from './uri';

/** An NFT metadata document (tokenURI / uri) is refused past this size or nesting depth, before it is parsed. */
export const NFT_METADATA_MAX_BYTES = 1024 * 1024;
export const NFT_METADATA_MAX_DEPTH = 16;

const JSON_ACCEPT = 'application/json,*/*;q=0.5';

export interface NftReads {
  gateways: ContentGateways;
  /** Fetches (or decodes) a URI's bytes within `maxBytes`. */
  load(target: UriTarget, accept: string, maxBytes?: number): Promise<{ bytes: Buffer; url: string | null }>;
}

/** `fn` of an NFT contract; undefined when it answers no value (no such token, not an NFT contract, undecodable). */
async function contractCall(access: NetworkAccess, ref: NftReference, fn: string, args: unknown[]) {
  const answer = await callView<[unknown]>(access.provider, {
    to: ref.contract,
    abi: ref.standard === 'erc721' ? erc721Interface : erc1155Interface,
    fn,
    args,
    context: `NFT ${fn}`,
  });
  return answer instanceof NoValue ? undefined : answer[0];
}

/** The network an NFT reference's chain id names; `unsupported-chain` when none is served here. */
export function nftNetwork(networks: Record<NetworkName, NetworkAccess>, ref: NftReference): NetworkAccess {
  const access = Object.values(networks).find((n) => n.config.chainId === ref.chainId);
  if (!access) {
    throw new AvatarUnavailableError(
      'unsupported-chain',
      `NFTs on chain ${ref.chainId} are not served here.`,
    );
  }
  return access;
}

/**
 * ENSIP-12's ownership check: the name's ETH address `owner` must hold the token (ERC-721 `ownerOf`, ERC-1155
 * `balanceOf`); `not-owned` otherwise.
 */
export async function verifyNftOwner(
  access: NetworkAccess,
  ref: NftReference,
  owner: string | null,
  name: string,
): Promise<void> {
  if (!owner) throw new AvatarUnavailableError('not-owned', `${name} has no ETH address to own the NFT.`);
  if (ref.standard === 'erc721') {
    const tokenOwner = await contractCall(access, ref, 'ownerOf', [ref.tokenId]);
    if (typeof tokenOwner !== 'string' || getAddress(tokenOwner) !== owner) {
      throw new AvatarUnavailableError(
        'not-owned',
        `Token ${ref.tokenId} of ${ref.contract} is not owned by ${owner}.`,
      );
    }
  } else {
    const balance = await contractCall(access, ref, 'balanceOf', [owner, ref.tokenId]);
    if (typeof balance !== 'bigint' || balance === 0n) {
      throw new AvatarUnavailableError(
        'not-owned',
        `${owner} holds no token ${ref.tokenId} of ${ref.contract}.`,
      );
    }
  }
}

/**
 * The image URI of an ENSIP-12 NFT avatar whose ownership is verified: `tokenURI` / `uri` (a hostile answer that
 * does not decode is `fetch-failed`) leads to metadata JSON of at most NFT_METADATA_MAX_BYTES and
 * NFT_METADATA_MAX_DEPTH levels, checked before it is parsed. Every failure is an AvatarUnavailableError.
 */
export async function nftMetadataImage(
  reads: NftReads,
  access: NetworkAccess,
  ref: NftReference,
): Promise<string> {
  const uriFn = ref.standard === 'erc721' ? 'tokenURI' : 'uri';
  const tokenUri = await contractCall(access, ref, uriFn, [ref.tokenId]);
  if (typeof tokenUri !== 'string' || tokenUri === '') {
    throw new AvatarUnavailableError(
      'fetch-failed',
      `${uriFn}(${ref.tokenId}) of ${ref.contract} gives no URI.`,
    );
  }
  const metadataUri = ref.standard === 'erc1155' ? substituteErc1155Id(tokenUri, ref.tokenId) : tokenUri;
  const document = await reads.load(
    uriTarget(metadataUri, reads.gateways),
    JSON_ACCEPT,
    NFT_METADATA_MAX_BYTES,
  );
  let metadata: unknown;
  try {
    metadata = parseOutboundJson(document.bytes, NFT_METADATA_MAX_DEPTH);
  } catch {
    throw new AvatarUnavailableError(
      'fetch-failed',
      `The token metadata at ${metadataUri.slice(0, 200)} is not JSON of at most ${NFT_METADATA_MAX_DEPTH} levels.`,
    );
  }
  return metadataImageUri(metadata);
}
