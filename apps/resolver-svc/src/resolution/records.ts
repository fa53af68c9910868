/**
 * Which records a request asks for, the resolver calls that read them, and the decoding of the answers into the
 * API's record shapes. Pure: no I/O.
 */
import { getCoderByCoinType } from '@ensdomains/address-encoder';
import {
  decodeAddrResult,
  decodeContenthashResult,
  decodeTextResult,
  encodeAddrCall,
  encodeContenthashCall,
  encodeTextCall,
} from '@nrp/chain';
import type { AddressRecord, ContenthashRecord, TextRecord } from '@nrp/api';
import { chainByCoinType, chainByName, decodeAddress, decodeContenthash, type Hex } from '@nrp/ens';

/** Default text keys of a profile (decisions.md). */
export const DEFAULT_TEXT_KEYS: readonly string[] = [
  'avatar',
  'header',
  'name',
  'description',
  'url',
  'email',
  'location',
  'com.twitter',
  'com.github',
  'com.discord',
  'org.telegram',
  'keywords',
];

/** Default chains of a profile (decisions.md). */
export const DEFAULT_CHAINS: readonly string[] = ['eth', 'btc', 'sol', 'base', 'op', 'arb', 'polygon', 'bsc'];

/**
 * What `GET /ens/v2/texts/{name}` reads without `keys`: ENS cannot enumerate the text keys a resolver holds, so
 * "the complete set" is every well-known key: the defaults, the other ENSIP-5 global keys, ENSIP-18 and common
 * service keys.
 */
export const WELL_KNOWN_TEXT_KEYS: readonly string[] = [
  ...DEFAULT_TEXT_KEYS,
  'display',
  'mail',
  'notice',
  'phone',
  'pronouns',
  'com.reddit',
  'com.linkedin',
  'com.youtube',
  'xyz.farcaster',
  'io.keybase',
  'org.matrix',
];

export const DEFAULT_COIN_TYPES: readonly number[] = DEFAULT_CHAINS.map((name) => {
  const chain = chainByName(name);
  if (!chain) throw new Error(`default chain ${name} is not in @nrp/ens chains`);
  return chain.coinType;
});

/** The text keys the reverse profile's summary fields come from. */
export const SUMMARY_TEXT_KEYS = {
  avatar: 'avatar',
  displayName: 'name',
  description: 'description',
} as const;

export interface RecordSelection {
  texts: readonly string[];
  coins: readonly number[];
  contenthash: boolean;
}

export interface ResolvedRecords {
  /** The resolver that answered; null when the name has none. */
  resolver: string | null;
  texts: TextRecord[];
  addresses: AddressRecord[];
  /** Present when the selection asked for it. */
  contenthash?: ContenthashRecord;
}

/**
 * A stable cache key part for a selection (order of texts and coins does not matter). Each list's sorted form is
 * memoised per array by the function made here (the default lists are shared constants, so warm lookups skip the
 * sort).
 */
export function selectionKeys(): (selection: RecordSelection) => string {
  const sortedParts = new WeakMap<readonly unknown[], string>();
  const sortedPart = (values: readonly string[] | readonly number[]): string => {
    let part = sortedParts.get(values);
    if (part === undefined) {
      part =
        typeof values[0] === 'number'
          ? [...(values as readonly number[])].sort((a, b) => a - b).join(',')
          : [...(values as readonly string[])].sort().join('\u0001');
      sortedParts.set(values, part);
    }
    return part;
  };
  return (selection) =>
    `t=${sortedPart(selection.texts)}|c=${sortedPart(selection.coins)}|h=${selection.contenthash ? 1 : 0}`;
}

/** The selection with `extra` text keys added (kept first-come, no duplicates). */
export function withTexts(selection: RecordSelection, extra: readonly string[]): RecordSelection {
  return { ...selection, texts: [...new Set([...selection.texts, ...extra])] };
}

/** One ABI-encoded resolver call per selected record: texts, then addresses, then the contenthash. */
export function recordCalls(name: string, selection: RecordSelection): Hex[] {
  const calls = [
    ...selection.texts.map((key) => encodeTextCall(name, key)),
    ...selection.coins.map((coin) => encodeAddrCall(name, coin)),
  ];
  if (selection.contenthash) calls.push(encodeContenthashCall(name));
  return calls;
}

/** Short chain name of a coin type: the @nrp/ens table, then address-encoder's coder name, else ''. */
export function chainNameOf(coin: number): string {
  const known = chainByCoinType(coin);
  if (known) return known.name;
  try {
    return getCoderByCoinType(coin).name.toLowerCase();
  } catch {
    return '';
  }
}

/** An answer that does not decode throws UpstreamError (BAD_DATA): the resolver answered garbage. */
export function decodeTextRecord(key: string, answer: Hex | null): TextRecord {
  const value = decodeTextResult(answer) ?? '';
  return { key, exists: value !== '', value };
}

/** Native address text; the raw 0x-hex when the coin type has no known format or the bytes do not fit it. */
export function decodeAddressRecord(coin: number, answer: Hex | null): AddressRecord {
  const chain = chainNameOf(coin);
  const bytes = decodeAddrResult(answer);
  if (bytes === null) return { coin, chain, exists: false, value: '' };
  let value: string;
  try {
    value = decodeAddress(coin, bytes);
  } catch {
    value = bytes;
  }
  return { coin, chain, exists: true, value };
}

/** URI form (`ipfs://…`); the raw 0x-hex when the codec is unknown. */
export function decodeContenthashRecord(answer: Hex | null): ContenthashRecord {
  const bytes = decodeContenthashResult(answer);
  if (bytes === null) return { exists: false, value: '' };
  try {
    return { exists: true, value: decodeContenthash(bytes) ?? '' };
  } catch {
    return { exists: true, value: bytes };
  }
}

/** Decodes the answers of `recordCalls(name, selection)` (same order). */
export function decodeRecords(
  selection: RecordSelection,
  resolver: string | null,
  answers: ReadonlyArray<Hex | null>,
): ResolvedRecords {
  const at = (i: number): Hex | null => answers[i] ?? null;
  const texts = selection.texts.map((key, i) => decodeTextRecord(key, at(i)));
  const offset = selection.texts.length;
  const addresses = selection.coins.map((coin, i) => decodeAddressRecord(coin, at(offset + i)));
  const result: ResolvedRecords = { resolver, texts, addresses };
  if (selection.contenthash)
    result.contenthash = decodeContenthashRecord(at(offset + selection.coins.length));
  return result;
}
