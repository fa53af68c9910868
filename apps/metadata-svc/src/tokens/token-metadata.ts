import type { NetworkName } from '@nrp/chain';
import { isNormalized, type Hex } from '@nrp/ens';
import { graphemes } from './render';

/** A token found by its namehash: a NameWrapper token on the chain, an offchain subname, or an L2 registry token. */
export interface TokenName {
  /** The L1 the name resolves on (its avatar and header records): the settlement chain of an L2 token. */
  network: NetworkName;
  /** The chain the token lives on. */
  chainId: number;
  node: Hex;
  name: string;
  source: 'namewrapper' | 'offchain' | 'l2registry';
  owner: string | null;
  /** NameWrapper fuses. */
  fuses?: number;
  /** NameWrapper or L2 registry expiry (Unix seconds; 0 = none). */
  expiry?: bigint;
  /** Unix milliseconds, where known (offchain records). */
  createdAt?: number;
}

const MAX_UINT64 = 2n ** 64n - 1n;

const CHILD_FUSES = {
  CANNOT_UNWRAP: 1,
  CANNOT_BURN_FUSES: 2,
  CANNOT_TRANSFER: 4,
  CANNOT_SET_RESOLVER: 8,
  CANNOT_SET_TTL: 16,
  CANNOT_CREATE_SUBDOMAIN: 32,
  CANNOT_APPROVE: 64,
} as const;
const PARENT_FUSES = {
  PARENT_CANNOT_CONTROL: 0x10000,
  IS_DOT_ETH: 0x20000,
  CAN_EXTEND_EXPIRY: 0x40000,
} as const;

/** NameWrapper fuses decoded as the ENS metadata service shows them (`Namewrapper Fuse States`). */
export function decodeFuses(fuses: number): {
  parent: Record<string, boolean>;
  child: Record<string, boolean>;
} {
  const named = (set: Record<string, number>) =>
    Object.fromEntries(Object.entries(set).map(([key, bit]) => [key, (fuses & bit) !== 0]));
  return {
    parent: named(PARENT_FUSES),
    child: { ...named(CHILD_FUSES), CAN_DO_EVERYTHING: (fuses & 0xffff) === 0 },
  };
}

/** `Locked`, `Emancipated` or `Wrapped`, as the ENS metadata service names the wrapper states. */
export function wrapperState(fuses: number): 'Locked' | 'Emancipated' | 'Wrapped' {
  if (fuses & PARENT_FUSES.PARENT_CANNOT_CONTROL) {
    return fuses & CHILD_FUSES.CANNOT_UNWRAP ? 'Locked' : 'Emancipated';
  }
  return 'Wrapped';
}

const EMOJI_ONLY = /^(\p{Extended_Pictographic}|\p{Emoji_Component}|\p{Emoji_Presentation}|\u200d|\ufe0f)+$/u;

/** `digit`, `letter`, `alphanumeric`, `emoji` or `mixed`, as the ENS metadata service classifies a label. */
export function characterSet(label: string): 'digit' | 'letter' | 'alphanumeric' | 'emoji' | 'mixed' {
  if (/^[0-9]+$/.test(label)) return 'digit';
  if (/^[a-zA-Z]+$/.test(label)) return 'letter';
  if (/^[\p{L}\p{N}]+$/u.test(label)) return 'alphanumeric';
  if (EMOJI_ONLY.test(label) && !/^[0-9#*]+$/.test(label)) return 'emoji';
  return 'mixed';
}

export interface MetadataAttribute {
  trait_type: string;
  display_type: string;
  value: string | number | boolean | Record<string, unknown>;
}

export interface TokenMetadataBody {
  name: string;
  description: string;
  image: string;
  image_url: string;
  attributes: MetadataAttribute[];
  name_length: number;
  segment_length: number;
  url: string | null;
  is_normalized: boolean;
  version: number;
  background_image?: string;
}

/** The ENS-metadata-service (version 2) shape of a token's metadata. */
export function buildMetadata(
  token: TokenName,
  urls: { image: string; nameUrlBase: string; headerUrl?: string },
): TokenMetadataBody {
  const normalized = isNormalized(token.name);
  const label = token.name.split('.')[0] ?? '';
  const shown = normalized ? token.name : `[${token.node.slice(0, 6)}...${token.node.slice(-4)}].eth`;
  let description = `${shown}, an ENS name.`;
  if (!normalized) description += ` (${token.name} is not in normalized form)`;
  if (!/^[\x20-\x7e]*$/.test(label)) {
    description +=
      ' ⚠️ ATTENTION: This name contains non-ASCII characters as shown above. Please be aware that there are ' +
      'characters that look identical or very similar to English letters, especially characters from Cyrillic ' +
      'and Greek. For more information: https://en.wikipedia.org/wiki/IDN_homograph_attack';
  }
  const nameLength = [...label].length;
  const segmentLength = graphemes(label).length;
  const attributes: MetadataAttribute[] = [];
  if (token.createdAt !== undefined) {
    attributes.push({ trait_type: 'Created Date', display_type: 'date', value: token.createdAt });
  }
  attributes.push(
    { trait_type: 'Length', display_type: 'number', value: nameLength },
    { trait_type: 'Segment Length', display_type: 'number', value: segmentLength },
    { trait_type: 'Character Set', display_type: 'string', value: characterSet(label) },
  );
  if (token.source === 'namewrapper' && token.fuses !== undefined) {
    attributes.push({
      trait_type: 'Namewrapper Fuse States',
      display_type: 'object',
      value: decodeFuses(token.fuses),
    });
    if (token.expiry !== undefined && token.expiry !== 0n && token.expiry !== MAX_UINT64) {
      attributes.push({
        trait_type: 'Namewrapper Expiry Date',
        display_type: 'date',
        value: Number(token.expiry) * 1000,
      });
    }
    attributes.push({
      trait_type: 'Namewrapper State',
      display_type: 'string',
      value: wrapperState(token.fuses),
    });
  }
  if (token.source === 'l2registry' && token.expiry !== undefined) {
    // The ENS metadata service's name of a registrar token's expiry; an L2 registry token is the closest kind.
    attributes.push({
      trait_type: 'Expiration Date',
      display_type: 'date',
      value: Number(token.expiry) * 1000,
    });
  }
  return {
    name: shown,
    description,
    image: urls.image,
    image_url: urls.image,
    attributes,
    name_length: nameLength,
    segment_length: segmentLength,
    url: normalized ? `${urls.nameUrlBase.replace(/\/+$/, '')}/${token.name}` : null,
    is_normalized: normalized,
    version: 2,
    ...(urls.headerUrl ? { background_image: urls.headerUrl } : {}),
  };
}
