import { decode, encode, getCodec, type Codec } from '@ensdomains/content-hash';
import { InvalidContenthashError } from './errors';
import { hexToBytes, type Hex } from './hex';

/** URI scheme ↔ @ensdomains/content-hash codec (ENSIP-7 and the codecs the ENS app shows). */
const SCHEME_TO_CODEC = {
  ipfs: 'ipfs',
  ipns: 'ipns',
  bzz: 'swarm',
  sia: 'skynet',
  ar: 'arweave',
  onion: 'onion',
  onion3: 'onion3',
} as const satisfies Record<string, Codec>;

type Scheme = keyof typeof SCHEME_TO_CODEC;

const CODEC_TO_SCHEME: Partial<Record<Codec, Scheme>> = Object.fromEntries(
  Object.entries(SCHEME_TO_CODEC).map(([scheme, codec]) => [codec, scheme as Scheme]),
);

/** Shape checks the library does not make itself (it would accept any text for onion/onion3). */
const VALUE_RE: Partial<Record<Scheme, RegExp>> = {
  bzz: /^[0-9a-fA-F]{64}$/,
  sia: /^[A-Za-z0-9_-]{46}$/,
  ar: /^[A-Za-z0-9_-]{43}$/,
  onion: /^[a-z2-7]{16}$/,
  onion3: /^[a-z2-7]{56}$/,
};

function isScheme(value: string): value is Scheme {
  return Object.hasOwn(SCHEME_TO_CODEC, value);
}

/** Schemes accepted by encodeContenthash. */
export const CONTENTHASH_SCHEMES: readonly string[] = Object.keys(SCHEME_TO_CODEC);

/**
 * Contenthash URI → resolver bytes as 0x-hex (ENSIP-7). Accepts ipfs://, ipns://, bzz:// (Swarm),
 * sia:// (Skynet), ar:// (Arweave), onion://, onion3://, and the path forms /ipfs/<cid>, /ipns/<name>.
 * IPFS CIDs (v0 or v1) are stored as CIDv1; IPNS names must be libp2p-key CIDs.
 * A trailing '/' is ignored; any other path is rejected. Throws InvalidContenthashError.
 */
export function encodeContenthash(uri: string): Hex {
  const match = /^([a-z0-9]+):\/\/(.+)$/.exec(uri.trim()) ?? /^\/(ipfs|ipns)\/(.+)$/.exec(uri.trim());
  if (!match?.[1] || !match[2]) {
    throw new InvalidContenthashError(
      uri,
      `expected <scheme>://<value> with scheme ${CONTENTHASH_SCHEMES.join(', ')}`,
    );
  }
  const scheme = match[1];
  const value = match[2].replace(/\/$/, '');
  if (!isScheme(scheme))
    throw new InvalidContenthashError(uri, `unsupported scheme ${JSON.stringify(scheme)}`);
  if (value.includes('/')) throw new InvalidContenthashError(uri, 'a contenthash cannot carry a path');
  const re = VALUE_RE[scheme];
  if (re && !re.test(value)) throw new InvalidContenthashError(uri, `malformed ${scheme} value`);
  try {
    return `0x${encode(SCHEME_TO_CODEC[scheme], value)}`;
  } catch (err) {
    throw new InvalidContenthashError(uri, err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/**
 * Resolver bytes (0x-hex) → URI form, e.g. 'ipfs://bafy…'. Empty ('0x' or '') → null (record unset).
 * Throws InvalidContenthashError for malformed bytes or an unknown codec.
 */
export function decodeContenthash(hex: string): string | null {
  if (hex === '' || hex === '0x') return null;
  const bytes = hexToBytes(hex);
  if (!bytes) throw new InvalidContenthashError(hex, 'not an even-length 0x-hex string');
  let codec: Codec | undefined;
  let value: string;
  try {
    codec = getCodec(hex);
    if (!codec) throw new Error('unknown contenthash codec');
    value = decode(hex);
  } catch (err) {
    throw new InvalidContenthashError(hex, err instanceof Error ? err.message : String(err), { cause: err });
  }
  const scheme = CODEC_TO_SCHEME[codec];
  if (!scheme) throw new InvalidContenthashError(hex, `codec ${codec} has no URI scheme here`);
  return `${scheme}://${value}`;
}
