/** Settings of one answer cache. */
export interface AnswerCacheLimits {
  /** Bytes the entries may take together (keys, values and tags, as UTF-16 lengths × 2, plus a fixed overhead). */
  maxBytes: number;
  /** An entry is served for at most this long after it was stored. */
  ttlMs: number;
  /** Clock in ms. */
  now: () => number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  expiresAt: number;
  tags: string[];
  protectedSegment: boolean;
}

/** What an entry costs besides its strings: the Map slots, the entry object and its tag-index slots. */
const ENTRY_OVERHEAD_BYTES = 200;
/** Share of the bytes for entries seen once; the rest is for entries hit again (segmented LRU). */
const PROBATION_SHARE = 0.2;

/**
 * A memory-bounded cache of answers in this process, with segmented LRU admission: a new entry enters the
 * probation segment (a fifth of the bytes) and moves to the protected segment on its first hit, so a flood of
 * distinct one-off keys only churns probation and never evicts the answers that are asked for again. Entries live
 * `ttlMs` at most and carry tags (the names they were answered from): `invalidate` drops every entry of a tag.
 * A reader takes `generation()` before it reads the source and hands it to `set`: an entry read before an
 * invalidation is not stored after it (the read may have seen the record before the write).
 */
export class AnswerCache<V> {
  private readonly probation = new Map<string, Entry<V>>();
  private readonly protectedEntries = new Map<string, Entry<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  private probationBytes = 0;
  private protectedBytes = 0;
  private invalidations = 0;

  constructor(private readonly limits: AnswerCacheLimits) {}

  get bytes(): number {
    return this.probationBytes + this.protectedBytes;
  }

  get size(): number {
    return this.probation.size + this.protectedEntries.size;
  }

  /** The counter `set` compares with: it moves on every invalidation. */
  generation(): number {
    return this.invalidations;
  }

  get(key: string): V | undefined {
    const entry = this.protectedEntries.get(key) ?? this.probation.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.limits.now()) {
      this.remove(key, entry);
      return undefined;
    }
    // Most recently used last: delete and set again; a probation entry hit again is promoted.
    if (entry.protectedSegment) {
      this.protectedEntries.delete(key);
      this.protectedEntries.set(key, entry);
    } else {
      this.remove(key, entry);
      this.insert(key, { ...entry, protectedSegment: true });
    }
    return entry.value;
  }

  /** Stores `value` (of `valueBytes`) unless an invalidation happened since `generation` or it cannot fit. */
  set(key: string, value: V, valueBytes: number, tags: string[], generation: number): void {
    if (generation !== this.invalidations || this.limits.ttlMs <= 0) return;
    const bytes =
      ENTRY_OVERHEAD_BYTES + 2 * (key.length + tags.reduce((n, t) => n + t.length, 0)) + valueBytes;
    if (bytes > this.limits.maxBytes * PROBATION_SHARE) return;
    const existing = this.protectedEntries.get(key) ?? this.probation.get(key);
    if (existing) this.remove(key, existing);
    this.insert(key, {
      value,
      bytes,
      expiresAt: this.limits.now() + this.limits.ttlMs,
      tags,
      protectedSegment: existing?.protectedSegment ?? false,
    });
  }

  /** Drops every entry tagged with one of `tags`. */
  invalidate(tags: Iterable<string>): void {
    this.invalidations++;
    for (const tag of tags) {
      for (const key of this.byTag.get(tag) ?? []) {
        const entry = this.protectedEntries.get(key) ?? this.probation.get(key);
        if (entry) this.remove(key, entry);
      }
    }
  }

  /** Drops every entry (when invalidations may have been missed). */
  clear(): void {
    this.invalidations++;
    this.probation.clear();
    this.protectedEntries.clear();
    this.byTag.clear();
    this.probationBytes = 0;
    this.protectedBytes = 0;
  }

  private insert(key: string, entry: Entry<V>): void {
    const segment = entry.protectedSegment ? this.protectedEntries : this.probation;
    segment.set(key, entry);
    if (entry.protectedSegment) this.protectedBytes += entry.bytes;
    else this.probationBytes += entry.bytes;
    for (const tag of entry.tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    this.evict();
  }

  private remove(key: string, entry: Entry<V>): void {
    if (entry.protectedSegment) {
      this.protectedEntries.delete(key);
      this.protectedBytes -= entry.bytes;
    } else {
      this.probation.delete(key);
      this.probationBytes -= entry.bytes;
    }
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }

  /** Least recently used first: protected overflow falls back to probation, probation overflow is dropped. */
  private evict(): void {
    const protectedMax = this.limits.maxBytes * (1 - PROBATION_SHARE);
    while (this.protectedBytes > protectedMax) {
      const [key, entry] = this.protectedEntries.entries().next().value as [string, Entry<V>];
      this.remove(key, entry);
      this.insert(key, { ...entry, protectedSegment: false });
    }
    const probationMax = this.limits.maxBytes * PROBATION_SHARE;
    while (this.probationBytes > probationMax) {
      const [key, entry] = this.probation.entries().next().value as [string, Entry<V>];
      this.remove(key, entry);
    }
  }
}
