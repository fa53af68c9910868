import type { NetworkName } from '@nrp/chain';
import type { ImageKind } from '../data/schema';

/** The public, stable URL of a name's image: the value its `avatar`/`header` text record must hold. */
export function stableImageUrl(baseUrl: string, network: NetworkName, name: string, kind: ImageKind): string {
  return `${baseUrl}/profile/${network}/${encodeURIComponent(name)}/${kind}`;
}

/** Whether a text record value is the stable URL (the name part may be percent-encoded or not). */
export function recordPointsAt(value: string | null, url: string): boolean {
  if (value === null) return false;
  const trimmed = value.trim();
  if (trimmed === url) return true;
  try {
    return decodeURIComponent(trimmed) === decodeURIComponent(url);
  } catch {
    return false;
  }
}
