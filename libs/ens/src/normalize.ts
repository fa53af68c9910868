import { ens_beautify, ens_normalize } from '@adraffy/ens-normalize';
import { InvalidNameError } from './errors';

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Recent normalisations: a name costs microseconds to normalise, more than the rest of a cached answer. */
const normalized = new Map<string, string>();
const NORMALIZED_MAX = 10_000;

/**
 * ENSIP-15 normalisation. Throws InvalidNameError (code INVALID_NAME) with the reason given by
 * @adraffy/ens-normalize. The empty string (the root) normalises to itself.
 */
export function normalizeName(name: string): string {
  const known = normalized.get(name);
  if (known !== undefined) return known;
  let result: string;
  try {
    result = ens_normalize(name);
  } catch (err) {
    throw new InvalidNameError(name, reasonOf(err), { cause: err });
  }
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(name, result);
  return result;
}

/** True when `name` is already in ENSIP-15 normalised form. */
export function isNormalized(name: string): boolean {
  try {
    return ens_normalize(name) === name;
  } catch {
    return false;
  }
}

/** ENSIP-15 beautified display form (e.g. keeps FE0F emoji presentation). Throws InvalidNameError. */
export function beautify(name: string): string {
  try {
    return ens_beautify(name);
  } catch (err) {
    throw new InvalidNameError(name, reasonOf(err), { cause: err });
  }
}

/** Labels of a name, left to right; the root ('') has none. Does not normalise. */
export function splitLabels(name: string): string[] {
  return name === '' ? [] : name.split('.');
}

/** True for a non-empty string without dots. Does not normalise. */
export function isSingleLabel(label: string): boolean {
  return label.length > 0 && !label.includes('.');
}

/** Parent of a name: 'a.b.eth' → 'b.eth', 'eth' → '' (the root); undefined for the root itself. */
export function parentOf(name: string): string | undefined {
  if (name === '') return undefined;
  const dot = name.indexOf('.');
  return dot === -1 ? '' : name.slice(dot + 1);
}
