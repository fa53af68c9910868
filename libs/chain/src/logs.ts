import type { Interface, LogDescription, Provider } from 'ethers';
import { toUpstreamError } from './errors';

/** The logs of one contract to read: every event of `abi` it emitted (or only `events`). */
export interface LogSource {
  address: string;
  abi: Interface;
  events?: readonly string[];
}

/** A decoded log with where it happened. */
export interface DecodedLog {
  address: string;
  event: LogDescription;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

/**
 * The logs of `sources` in blocks `fromBlock..toBlock` (inclusive), decoded and in chain order (block, log index).
 * One `eth_getLogs` per source. A node that fails, or answers logs that do not decode as the events asked for
 * (garbage), throws UpstreamError: the caller retries the same range, never applies part of it.
 */
export async function readLogs(
  provider: Provider,
  sources: readonly LogSource[],
  fromBlock: number,
  toBlock: number,
  context: string,
): Promise<DecodedLog[]> {
  const perSource = await Promise.all(
    sources.map(async (source) => {
      const fragments = (source.events ?? []).map((name) => source.abi.getEvent(name));
      const topics = fragments.length > 0 ? [fragments.map((f) => f?.topicHash ?? '')] : undefined;
      let logs;
      try {
        logs = await provider.getLogs({ address: source.address, fromBlock, toBlock, topics });
      } catch (err) {
        throw toUpstreamError(`${context}: logs of ${source.address}`, err);
      }
      return logs.flatMap((log): DecodedLog[] => {
        let event: LogDescription | null;
        try {
          event = source.abi.parseLog({ topics: [...log.topics], data: log.data });
        } catch (err) {
          throw toUpstreamError(`${context}: undecodable log of ${source.address}`, err);
        }
        if (!event) return [];
        return [
          {
            address: log.address,
            event,
            blockNumber: log.blockNumber,
            blockHash: log.blockHash,
            transactionHash: log.transactionHash,
            logIndex: log.index,
          },
        ];
      });
    }),
  );
  return perSource.flat().sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}
