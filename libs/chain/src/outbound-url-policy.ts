import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { z } from 'zod';

/**
 * Which URLs a service may fetch when someone else picked them (SSRF guard): CCIP-Read gateway URLs chosen by a
 * resolver, webhook targets chosen by an API client, avatar and NFT metadata URLs chosen by a name's records. By
 * default only `https:` URLs to public hosts. `allowedOrigins` (exact origins such as `http://127.0.0.1:3003`)
 * bypass every check, for development and tests.
 */
export interface OutboundUrlPolicy {
  allowedOrigins?: readonly string[];
}

type Prefix = readonly [bytes: readonly number[], bits: number];

/**
 * Every range of the IANA IPv4 Special-Purpose Address Registry (globally reachable or not: none is a place a
 * webhook, gateway or avatar lives), plus multicast (224.0.0.0/4). 240.0.0.0/4 includes the broadcast address.
 */
const SPECIAL_IPV4: readonly Prefix[] = [
  [[0], 8],
  [[10], 8],
  [[100, 64], 10],
  [[127], 8],
  [[169, 254], 16],
  [[172, 16], 12],
  [[192, 0, 0], 24],
  [[192, 0, 2], 24],
  [[192, 31, 196], 24],
  [[192, 52, 193], 24],
  [[192, 88, 99], 24],
  [[192, 168], 16],
  [[192, 175, 48], 24],
  [[198, 18], 15],
  [[198, 51, 100], 24],
  [[203, 0, 113], 24],
  [[224], 4],
  [[240], 4],
];

/**
 * Ranges of the IANA IPv6 Special-Purpose Address Registry inside 2000::/3 (global unicast); everything outside
 * 2000::/3 is refused anyway (loopback, unspecified, unique local fc00::/7, link-local fe80::/10, the deprecated
 * site-local fec0::/10, multicast ff00::/8, discard 100::/64, the local-use NAT64 prefix 64:ff9b:1::/48, SRv6
 * 5f00::/16), except the forms that embed an IPv4 address (see `embeddedIpv4`).
 */
const SPECIAL_IPV6_GLOBAL: readonly Prefix[] = [
  [[0x20, 0x01, 0x00], 23], // IETF protocol assignments (Teredo 2001::/32 is judged by its embedded addresses)
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x26, 0x20, 0x00, 0x4f, 0x80], 48], // AS112 direct delegation
  [[0x3f, 0xff, 0x00], 20], // documentation (RFC 9637)
];

function inPrefix(bytes: readonly number[], [prefix, bits]: Prefix): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map(Number);
}

function ipv6Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let head = text;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    tail = ipv4Bytes(dotted) ?? [];
    head = `${text.slice(0, -dotted.length)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const groups =
    right === undefined
      ? leftGroups
      : [
          ...leftGroups,
          ...Array<string>(8 - leftGroups.length - rightGroups.length).fill('0'),
          ...rightGroups,
        ];
  const bytes = groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? bytes : undefined;
}

const zeros = (bytes: readonly number[], from: number, to: number) =>
  bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 addresses an IPv6 address stands for, when it embeds one: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d` (`::` and `::1` included, as 0.0.0.0 and 0.0.0.1), NAT64
 * `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::` and Teredo `2001:0:SSSS:SSSS::CCCC:CCCC` (its server and its
 * obfuscated client address). Undefined for any other address.
 */
function embeddedIpv4(bytes: readonly number[]): number[][] | undefined {
  const last4 = bytes.slice(12, 16);
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [last4];
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) return [last4];
  if (zeros(bytes, 0, 12)) return [last4];
  if (inPrefix(bytes, [[0x00, 0x64, 0xff, 0x9b], 32]) && zeros(bytes, 4, 12)) return [last4];
  if (inPrefix(bytes, [[0x20, 0x02], 16])) return [bytes.slice(2, 6)];
  if (inPrefix(bytes, [[0x20, 0x01, 0x00, 0x00], 32])) return [bytes.slice(4, 8), last4.map((b) => b ^ 0xff)];
  return undefined;
}

const isPublicIpv4 = (bytes: readonly number[]) => !SPECIAL_IPV4.some((range) => inPrefix(bytes, range));

/**
 * Whether an IP address (IPv4, or IPv6 with or without brackets) may be reached by a fetch someone else chose:
 * false for every IANA special-purpose range (private, loopback, link-local, CGNAT, documentation, benchmarking,
 * multicast, reserved, …), for IPv6 outside global unicast 2000::/3, and for IPv6 forms embedding an IPv4 address
 * that is not public itself. False for anything that is not an IP address.
 */
export function isPublicAddress(address: string): boolean {
  const ip = address
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  const v4 = ipv4Bytes(ip);
  if (v4) return isPublicIpv4(v4);
  const v6 = ipv6Bytes(ip);
  if (!v6) return false;
  const embedded = embeddedIpv4(v6);
  if (embedded) return embedded.every(isPublicIpv4);
  if (((v6[0] ?? 0) & 0xe0) !== 0x20) return false;
  return !SPECIAL_IPV6_GLOBAL.some((range) => inPrefix(v6, range));
}

/**
 * An origin exactly (`scheme://host[:port]`, a trailing `/` tolerated), normalised by the WHATWG URL parser:
 * `http://127.0.0.1:3003/` → `http://127.0.0.1:3003`. Throws on anything else — another scheme, user info, a
 * path, a query or a fragment — so an allowed origin never silently widens to a whole host.
 */
export function normaliseOrigin(value: string): string {
  const text = value.trim();
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`not an http(s) origin: ${value}`);
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || /[?#]$/.test(text))
    throw new TypeError(`not an origin (scheme://host[:port] only): ${value}`);
  return url.origin;
}

/** Comma-separated http(s) origins (an environment variable), each exactly an origin (`normaliseOrigin`). */
export const originListSchema = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    try {
      origins.push(normaliseOrigin(part));
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }
  return origins;
});

/** Whether `url`'s origin is one of the policy's allowed origins (exact match of the normalised origin). */
export function isAllowedOrigin(url: URL, policy: OutboundUrlPolicy): boolean {
  return policy.allowedOrigins?.includes(url.origin) === true;
}

/**
 * Why `url` (a URL, or an EIP-3668 URL template) is refused from its text alone, or null when it passes: an
 * allow-listed origin passes; otherwise `https:`, no `localhost` / `*.localhost`, and a literal IP must be public
 * (`isPublicAddress`). The reason names only what the URL itself says. A host name is checked when the socket
 * connects (`publicOnlyLookup`), so what it resolves to is never part of an answer.
 */
export function outboundUrlRefusal(url: string, policy: OutboundUrlPolicy = {}): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (isAllowedOrigin(parsed, policy)) return null;
  if (parsed.protocol !== 'https:') return `only https: URLs are allowed, not ${parsed.protocol}`;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback host`;
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && !isPublicAddress(host)) {
    return `${host} is not a public address (private, loopback, link-local or another special-purpose range)`;
  }
  return null;
}

/** The code of the lookup error `publicOnlyLookup` fails a connection with. */
export const NON_PUBLIC_ADDRESS = 'ERR_NON_PUBLIC_ADDRESS';

/**
 * A DNS lookup for sockets that refuses a host name with any non-public address (`isPublicAddress`) and hands the
 * socket exactly the addresses it checked: the connection is pinned to them, so a rebinding host cannot switch to
 * an internal address between the check and the connect. Its errors say what was resolved; they are for logs.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
    if (err) {
      callback(err, '', 0);
      return;
    }
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    const first = addresses[0];
    if (bad || !first) {
      const refused = Object.assign(
        new Error(`${hostname} resolves to ${bad?.address ?? 'nothing'}, not a public address`),
        { code: NON_PUBLIC_ADDRESS },
      );
      callback(refused, '', 0);
      return;
    }
    if (options.all) (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    else callback(null, first.address, first.family);
  });
};
