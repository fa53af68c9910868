import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { z } from 'zod';

/**
 * Which URLs a service may fetch when someone else picked them (SSRF guard): CCIP-Read gateway URLs chosen by a
 * resolver, webhook targets chosen by an API client. By default only `https:` URLs to public hosts.
 * `allowedOrigins` (exact origins such as `http://127.0.0.1:3003`) bypass every check, for development and tests.
 */
export interface OutboundUrlPolicy {
  allowedOrigins?: readonly string[];
}

const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv6');

/** True for loopback, private, link-local, CGNAT, multicast, reserved and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  if (mapped) return isPrivateAddress(mapped);
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
  if (hexMapped?.[1] && hexMapped[2]) {
    const hi = parseInt(hexMapped[1], 16);
    const lo = parseInt(hexMapped[2], 16);
    return isPrivateAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  const family = isIP(ip);
  if (family === 4) return privateRanges.check(ip, 'ipv4');
  if (family === 6) return privateRanges.check(ip, 'ipv6');
  return false;
}

/** `http://127.0.0.1:3003/` → `http://127.0.0.1:3003`; throws on a value that is not an http(s) URL. */
export function normaliseOrigin(value: string): string {
  const url = new URL(value.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`not an http(s) origin: ${value}`);
  return url.origin;
}

/** Comma-separated http(s) origins (an environment variable), normalised with `normaliseOrigin`. */
export const originListSchema = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    try {
      origins.push(normaliseOrigin(part));
    } catch {
      ctx.addIssue({ code: 'custom', message: `not an http(s) origin: ${part.trim()}` });
      return z.NEVER;
    }
  }
  return origins;
});

/**
 * Why `url` (a URL, or an EIP-3668 URL template) is refused without looking it up, or null when it passes the static
 * checks: allow-listed origin, else `https:` and a host that is not `localhost` or a private/loopback/link-local
 * literal IP.
 */
export function outboundUrlRefusal(url: string, policy: OutboundUrlPolicy = {}): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (policy.allowedOrigins?.includes(parsed.origin)) return null;
  if (parsed.protocol !== 'https:') return `only https: URLs are allowed, not ${parsed.protocol}`;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback host`;
  if (isPrivateAddress(host)) return `${host} is a private, loopback or link-local address`;
  return null;
}

/**
 * `outboundUrlRefusal`, then for a host name (not allow-listed): every address it resolves to must be public. A
 * name that does not resolve passes (the fetch then fails on its own).
 */
export async function checkOutboundUrl(url: string, policy: OutboundUrlPolicy = {}): Promise<string | null> {
  const refusal = outboundUrlRefusal(url, policy);
  if (refusal !== null) return refusal;
  const parsed = new URL(url);
  if (policy.allowedOrigins?.includes(parsed.origin)) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return null;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    return null;
  }
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  return bad ? `${host} resolves to ${bad.address}, a private, loopback or link-local address` : null;
}
