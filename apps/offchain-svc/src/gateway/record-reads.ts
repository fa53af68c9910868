/** The gateway's cold reads of records, coalesced: one query serves every lookup that can share it. */
import type { Kysely } from 'kysely';
import type { OffchainDatabase } from '../data/schema';
import { findRecordsByNames, type GatewayRecords } from '../data/subnames';

/** At most this many distinct names in one query; more waiting together go in several. */
const MAX_NAMES_PER_READ = 100;

interface Read {
  name: string;
  /** The record writes' generation when the read was asked for. */
  generation: number;
  promise: Promise<GatewayRecords | undefined>;
  resolve: (records: GatewayRecords | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Reads the gateway records of names, sharing queries between concurrent lookups:
 * - a lookup of a name whose read is already waiting or in flight joins it, unless a write of records committed in
 *   this replica since that read was asked for (`generation()` moved: the answer cache's counter, which every
 *   committed write moves before it is acknowledged), so a lookup made after a write was acknowledged never gets a
 *   record read before it;
 * - the names asked for in one turn of the event loop are read together, in one `full_name = ANY($1)` query each
 *   `MAX_NAMES_PER_READ` names, sent in the next turn.
 * A failed query fails every lookup that waited on it; the next lookup reads again.
 */
export class GatewayRecordReads {
  /** The newest read of each name not yet answered. */
  private readonly reads = new Map<string, Read>();
  private waiting: Read[] = [];

  constructor(
    private readonly db: Kysely<OffchainDatabase>,
    private readonly generation: () => number,
  ) {}

  /** The records of `name`, undefined when no such subname exists. */
  read(name: string): Promise<GatewayRecords | undefined> {
    const generation = this.generation();
    const current = this.reads.get(name);
    if (current?.generation === generation) return current.promise;
    const read = { name, generation } as Read;
    read.promise = new Promise((resolve, reject) => Object.assign(read, { resolve, reject }));
    this.reads.set(name, read);
    if (this.waiting.length === 0) setImmediate(() => this.send());
    this.waiting.push(read);
    return read.promise;
  }

  private send(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += MAX_NAMES_PER_READ) {
      const batch = waiting.slice(start, start + MAX_NAMES_PER_READ);
      findRecordsByNames(this.db, [...new Set(batch.map((read) => read.name))]).then(
        (found) => this.settle(batch, (read) => read.resolve(found.get(read.name))),
        (err: unknown) => this.settle(batch, (read) => read.reject(err)),
      );
    }
  }

  private settle(batch: Read[], answer: (read: Read) => void): void {
    for (const read of batch) {
      if (this.reads.get(read.name) === read) this.reads.delete(read.name);
      answer(read);
    }
  }
}
