/**
 * ENSIP-12 interpretation of `avatar` / `header` text records, NFT token URIs and NFT metadata, as pure functions:
 * what to fetch (or decode), never the fetching itself.
 */

/** Why a record gave no image; answered as the `reason` of a 404 `AVATAR_UNAVAILABLE`. */
export type AvatarUnavailableReason =
  | 'unsupported-scheme'
  | 'unsupported-chain'
  | 'not-owned'
  | 'url-refused'
  | 'fetch-failed'
  | 'too-large'
  | 'not-an-image';

export class AvatarUnavailableError extends Error {
  override name = 'AvatarUnavailableError';
  constructor(
    readonly reason: AvatarUnavailableReason,
    message: string,
  ) {
    super(message);
  }
}

export interface ContentGateways {
  /** Base URL of an IPFS HTTP gateway (`/ipfs/<cid>` and `/ipns/<name>` paths). */
  ipfs: string;
  /** Base URL of an Arweave gateway (`/<txid>` paths). */
  arweave: string;
}

/** Where a URI leads: a URL to fetch over HTTP(S), or an inline `data:` URI. */
export interface UriTarget {
  kind: 'https' | 'ipfs' | 'ipns' | 'arweave' | 'data';
  url: string;
}

export interface NftReference {
  chainId: number;
  standard: 'erc721' | 'erc1155';
  contract: string;
  tokenId: bigint;
}

const trimSlash = (base: string) => base.replace(/\/+$/, '');
// CIDv0 (base58btc multihash) or CIDv1 in base32 (the `b` prefix): a bare CID is taken as an IPFS path.
const BARE_CID = /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{58,})(\/.*)?$/;

/**
 * The URL to fetch (or the data URI) for a URI of an avatar record, a token URI or an NFT metadata image:
 * `https://` and `http://` as given (the fetch policy decides), `ipfs://<cid>/<path>`, `ipfs/<cid>/<path>`,
 * `/ipfs/<cid>`, a bare CID, `ipns://<name>` and `ar://<txid>` through the configured gateways, `data:` inline.
 */
export function uriTarget(uri: string, gateways: ContentGateways): UriTarget {
  const value = uri.trim();
  const lower = value.toLowerCase();
  if (lower.startsWith('https://') || lower.startsWith('http://')) return { kind: 'https', url: value };
  if (lower.startsWith('data:')) return { kind: 'data', url: value };
  const ipfsPath =
    /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(value)?.[1] ??
    /^\/?ipfs\/(.+)$/i.exec(value)?.[1] ??
    (BARE_CID.test(value) ? value : undefined);
  if (ipfsPath) return { kind: 'ipfs', url: `${trimSlash(gateways.ipfs)}/ipfs/${ipfsPath}` };
  const ipnsPath = /^ipns:\/\/(.+)$/i.exec(value)?.[1] ?? /^\/?ipns\/(.+)$/i.exec(value)?.[1];
  if (ipnsPath) return { kind: 'ipns', url: `${trimSlash(gateways.ipfs)}/ipns/${ipnsPath}` };
  const arPath = /^ar:\/\/(.+)$/i.exec(value)?.[1];
  if (arPath) return { kind: 'arweave', url: `${trimSlash(gateways.arweave)}/${arPath}` };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  throw new AvatarUnavailableError(
    'unsupported-scheme',
    scheme ? `The URI scheme ${scheme}: is not supported.` : 'The value is not a URI ENSIP-12 supports.',
  );
}

/**
 * An ENSIP-12 NFT reference `eip155:<chainId>/<erc721|erc1155>:<contract>/<tokenId>` (token id decimal or 0x-hex),
 * or null when the value is not an `eip155:` reference at all. A malformed one, or another token standard, is
 * `unsupported-scheme`.
 */
export function parseNftReference(value: string): NftReference | null {
  const trimmed = value.trim();
  if (!/^eip155:/i.test(trimmed)) return null;
  const match =
    /^eip155:(\d{1,12})\/(erc721|erc1155):(0x[0-9a-fA-F]{40})\/(0x[0-9a-fA-F]{1,64}|\d{1,78})$/i.exec(
      trimmed,
    );
  if (!match?.[1] || !match[2] || !match[3] || !match[4]) {
    throw new AvatarUnavailableError(
      'unsupported-scheme',
      'Not an ENSIP-12 NFT reference (eip155:<chainId>/erc721|erc1155:<contract>/<tokenId>).',
    );
  }
  const tokenId = BigInt(match[4]);
  if (tokenId >= 2n ** 256n)
    throw new AvatarUnavailableError('unsupported-scheme', 'The token id exceeds uint256.');
  return {
    chainId: Number(match[1]),
    standard: match[2].toLowerCase() as 'erc721' | 'erc1155',
    contract: match[3],
    tokenId,
  };
}

/** ERC-1155 `uri(id)` with `{id}` replaced by the token id as 64 lowercase hex digits (no 0x), per the standard. */
export function substituteErc1155Id(template: string, tokenId: bigint): string {
  return template.replaceAll('{id}', tokenId.toString(16).padStart(64, '0'));
}

/**
 * The image URI of NFT metadata (ERC-721/1155 metadata JSON): `image`, else `image_url`, else `image_data` (an
 * inline SVG document, returned as a data URI).
 */
export function metadataImageUri(metadata: unknown): string {
  if (metadata !== null && typeof metadata === 'object') {
    const fields = metadata as Record<string, unknown>;
    for (const key of ['image', 'image_url'] as const) {
      const value = fields[key];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    }
    const data = fields.image_data;
    if (typeof data === 'string' && data.trim() !== '') {
      return `data:image/svg+xml;base64,${Buffer.from(data, 'utf8').toString('base64')}`;
    }
  }
  throw new AvatarUnavailableError('not-an-image', 'The NFT metadata has no image, image_url or image_data.');
}

/**
 * The bytes of a `data:` URI (RFC 2397: base64 or percent-encoded), refusing more than `maxBytes` before decoding
 * the whole payload.
 */
export function decodeDataUri(uri: string, maxBytes: number): { mediaType: string; bytes: Buffer } {
  const comma = uri.indexOf(',');
  const header = /^data:([^,]*)$/i.exec(comma < 0 ? '' : uri.slice(0, comma));
  if (!header) throw new AvatarUnavailableError('fetch-failed', 'The data: URI is malformed.');
  const params = (header[1] ?? '').split(';');
  const base64 = params.at(-1)?.toLowerCase() === 'base64';
  const mediaType = (params[0] ?? '').trim().toLowerCase() || 'text/plain';
  const payload = uri.slice(comma + 1);
  const estimated = base64 ? Math.floor((payload.length * 3) / 4) : payload.length;
  if (estimated > maxBytes * 3) {
    throw new AvatarUnavailableError('too-large', `The data: URI holds more than ${maxBytes} bytes.`);
  }
  let bytes: Buffer;
  try {
    bytes = base64 ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    throw new AvatarUnavailableError('fetch-failed', 'The data: URI payload cannot be decoded.');
  }
  if (bytes.length > maxBytes) {
    throw new AvatarUnavailableError(
      'too-large',
      `The data: URI holds ${bytes.length} bytes; at most ${maxBytes}.`,
    );
  }
  return { mediaType, bytes };
}
