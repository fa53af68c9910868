import {
  isHexString,
  toQuantity,
  type Interface,
  type JsonRpcApiProvider,
  type LogDescription,
} from 'ethers';
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

/** A block as a follower of the chain needs it. */
export interface BlockHeader {
  number: number;
  hash: string;
  timestamp: number;
}

const isQuantity = (v: unknown): v is string => typeof v === 'string' && /^0x(0|[1-9a-f][0-9a-f]*)$/i.test(v);
const isBytes32 = (v: unknown): v is string => isHexString(v, 32);

/** A raw `eth_getLogs` entry, checked field by field: anything else from the node is garbage. */
function rawLog(value: unknown, context: string) {
  const log = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const { address, topics, data, blockNumber, blockHash, transactionHash, logIndex, removed } = log;
  if (
    !isHexString(address, 20) ||
    !Array.isArray(topics) ||
    !topics.every(isBytes32) ||
    !isHexString(data) ||
    !isQuantity(blockNumber) ||
    !isBytes32(blockHash) ||
    !isBytes32(transactionHash) ||
    !isQuantity(logIndex) ||
    removed === true
  ) {
    throw toUpstreamError(context, new Error('the node answered a log that is not one'));
  }
  return {
    address,
    topics: topics as string[],
    data,
    blockNumber: Number(blockNumber),
    blockHash,
    transactionHash,
    logIndex: Number(logIndex),
  };
}

/**
 * The logs of `sources` in blocks `fromBlock..toBlock` (inclusive), decoded and in chain order (block, log index).
 * One `eth_getLogs` per source, sent as is: never an answer ethers kept from an earlier identical request (its
 * 250 ms cache), which could belong to a chain reorganised since. A node that fails, or answers anything but logs of
 * that contract in that range that decode as the events asked for (garbage), throws UpstreamError: the caller retries
 * the same range, never applies part of it.
 */
export async function readLogs(
  provider: JsonRpcApiProvider,
  sources: readonly LogSource[],
  fromBlock: number,
  toBlock: number,
  context: string,
): Promise<DecodedLog[]> {
  const perSource = await Promise.all(
    sources.map(async (source) => {
      const where = `${context}: logs of ${source.address}`;
      const fragments = (source.events ?? []).map((name) => source.abi.getEvent(name));
      const topics = fragments.length > 0 ? [fragments.map((f) => f?.topicHash ?? '')] : [];
      let answer: unknown;
      try {
        answer = await provider.send('eth_getLogs', [
          { address: source.address, fromBlock: toQuantity(fromBlock), toBlock: toQuantity(toBlock), topics },
        ]);
      } catch (err) {
        throw toUpstreamError(where, err);
      }
      if (!Array.isArray(answer))
        throw toUpstreamError(where, new Error('the node answered no list of logs'));
      return answer.map((value): DecodedLog | null => {
        const log = rawLog(value, where);
        if (
          log.address.toLowerCase() !== source.address.toLowerCase() ||
          log.blockNumber < fromBlock ||
          log.blockNumber > toBlock
        ) {
          throw toUpstreamError(where, new Error(`a log of block ${log.blockNumber} or another contract`));
        }
        let event: LogDescription | null;
        try {
          event = source.abi.parseLog({ topics: log.topics, data: log.data });
        } catch (err) {
          throw toUpstreamError(`${context}: undecodable log of ${source.address}`, err);
        }
        if (!event) return null;
        return {
          address: log.address,
          event,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          transactionHash: log.transactionHash,
          logIndex: log.logIndex,
        };
      });
    }),
  );
  return perSource
    .flat()
    .filter((log): log is DecodedLog => log !== null)
    .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

/**
 * Block `blockNumber` (or the node's head, `latest`) of the chain as the node has it now (null when it has none),
 * sent as is like readLogs: the hash a follower compares to find a reorganisation, or the head a gateway reads at,
 * must never come from ethers' cache. Garbage is an UpstreamError.
 */
export async function readBlock(
  provider: JsonRpcApiProvider,
  blockNumber: number | 'latest',
  context: string,
): Promise<BlockHeader | null> {
  let answer: unknown;
  try {
    const tag = blockNumber === 'latest' ? blockNumber : toQuantity(blockNumber);
    answer = await provider.send('eth_getBlockByNumber', [tag, false]);
  } catch (err) {
    throw toUpstreamError(context, err);
  }
  if (answer === null) return null;
  const block = (typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  const asked = blockNumber === 'latest' || Number(block.number) === blockNumber;
  if (!isQuantity(block.number) || !asked || !isBytes32(block.hash)) {
    throw toUpstreamError(context, new Error(`the node answered no block ${blockNumber}`));
  }
  if (!isQuantity(block.timestamp)) throw toUpstreamError(context, new Error('a block without a timestamp'));
  return { number: Number(block.number), hash: block.hash, timestamp: Number(block.timestamp) };
}

/** The node's head block number now, sent as is like readBlock (ethers may answer an earlier head for 250 ms). */
export async function readBlockNumber(provider: JsonRpcApiProvider, context: string): Promise<number> {
  let answer: unknown;
  try {
    answer = await provider.send('eth_blockNumber', []);
  } catch (err) {
    throw toUpstreamError(context, err);
  }
  if (!isQuantity(answer)) throw toUpstreamError(context, new Error('the node answered no block number'));
  return Number(answer);
}
