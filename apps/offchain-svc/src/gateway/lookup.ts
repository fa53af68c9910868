import { dnsDecode, encodeAddress, encodeContenthash, normalizeName } from '@nrp/ens';
import { ProblemError, type ProblemDef } from '@nrp/validation';
import type { GatewayRecords } from '../data/subnames';
import { offchainProblems } from '../problems';

/** Calls one multicall may carry: a whole profile (ENSIP-22) is about 20; a name holds at most 150 records. */
export const MAX_MULTICALL_CALLS = 200;
/** The largest result (ABI-encoded, before signing) a request is answered with. */
export const MAX_RESULT_BYTES = 1024 * 1024;

const SELECTOR = {
  resolve: 0x9061b923,
  addr: 0x3b3b57de,
  addrWithCoin: 0xf1cb7e06,
  text: 0x59d1d43c,
  contenthash: 0xbc1c58d1,
  multicall: 0xac9650d8,
} as const;

/** A request the gateway does not answer: undecodable callData, an unknown selector, or limits exceeded. */
class GatewayRequestError extends Error {
  constructor(
    readonly problem: ProblemDef,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new GatewayRequestError(offchainProblems.INVALID_CCIP_REQUEST, message);
const unsupported = (message: string) =>
  new GatewayRequestError(offchainProblems.UNSUPPORTED_RESOLVER_CALL, message);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const EMPTY: GatewayRecords = { texts: {}, addresses: {}, contenthash: null };
const WORD = 32;

/** The head word at `offset` of `args` as an offset or a length (below 2^32), or an error. */
function readLength(args: Buffer, offset: number, what: string): number {
  if (offset + WORD > args.length) throw invalid(`${what} is cut short`);
  for (let i = offset; i < offset + WORD - 4; i++) {
    if (args[i] !== 0) throw invalid(`${what} is out of range`);
  }
  return args.readUInt32BE(offset + WORD - 4);
}

/** The `bytes` (or `string`) argument whose offset is in the head word at `head`. */
function readBytes(args: Buffer, head: number, what: string): Buffer {
  const start = readLength(args, head, what);
  const length = readLength(args, start, what);
  const end = start + WORD + length;
  if (end > args.length) throw invalid(`${what} is cut short`);
  return args.subarray(start + WORD, end);
}

/** Selector and arguments of one call, each checked for length before it is read. */
function splitCall(call: Buffer, what: string): { selector: number; args: Buffer } {
  if (call.length < 4) throw invalid(`${what} has no function selector`);
  return { selector: call.readUInt32BE(0), args: call.subarray(4) };
}

/** ABI encoding of one dynamic `bytes`/`string` value without its offset word: length, data, zero padding. */
function encodeTail(data: Buffer): Buffer {
  const tail = Buffer.alloc(WORD + Math.ceil(data.length / WORD) * WORD);
  tail.writeUInt32BE(data.length, WORD - 4);
  data.copy(tail, WORD);
  return tail;
}

/** A function result of one dynamic value: its offset word (32), then the value. */
function encodeDynamicResult(data: Buffer): Buffer {
  const offset = Buffer.alloc(WORD);
  offset[WORD - 1] = WORD;
  return Buffer.concat([offset, encodeTail(data)]);
}

const hexBytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');

function addressBytes(records: GatewayRecords, coinType: bigint): Buffer {
  const value = coinType <= 0xffffffffn ? records.addresses[coinType.toString()] : undefined;
  if (!value) return Buffer.alloc(0);
  // Stored values were validated on write; a value that no longer encodes is answered as unset.
  try {
    return hexBytes(encodeAddress(Number(coinType), value));
  } catch {
    return Buffer.alloc(0);
  }
}

function contenthashBytes(records: GatewayRecords): Buffer {
  if (!records.contenthash) return Buffer.alloc(0);
  try {
    return hexBytes(encodeContenthash(records.contenthash));
  } catch {
    return Buffer.alloc(0);
  }
}

/** One record call, decoded. */
export type RecordCall =
  | { kind: 'addr' }
  | { kind: 'addrWithCoin'; coinType: bigint }
  | { kind: 'text'; key: string }
  | { kind: 'contenthash' };

/** Decodes one record call (not a multicall), only the arguments its answer needs. */
function decodeRecordCall(call: Buffer): RecordCall {
  const { selector, args } = splitCall(call, 'the resolver call');
  switch (selector) {
    case SELECTOR.addr:
      return { kind: 'addr' };
    case SELECTOR.addrWithCoin:
      if (args.length < 2 * WORD) throw invalid('addr(bytes32,uint256) is cut short');
      return { kind: 'addrWithCoin', coinType: BigInt(`0x${args.subarray(WORD, 2 * WORD).toString('hex')}`) };
    case SELECTOR.text: {
      const key = readBytes(args, WORD, 'the text key');
      try {
        return { kind: 'text', key: utf8.decode(key) };
      } catch {
        throw invalid('the text key is not UTF-8');
      }
    }
    case SELECTOR.contenthash:
      return { kind: 'contenthash' };
    case SELECTOR.multicall:
      throw unsupported('multicall cannot be nested');
    default:
      throw unsupported(`the gateway does not answer 0x${selector.toString(16).padStart(8, '0')}`);
  }
}

/** The ABI-encoded result of one record call. */
function answerRecordCall(call: RecordCall, records: GatewayRecords): Buffer {
  switch (call.kind) {
    case 'addr': {
      const word = Buffer.alloc(WORD);
      const value = records.addresses['60'];
      if (value) hexBytes(value).copy(word, WORD - 20);
      return word;
    }
    case 'addrWithCoin':
      return encodeDynamicResult(addressBytes(records, call.coinType));
    case 'text':
      // Own keys only: a key such as `toString` or `__proto__` is a record like any other, unset here.
      return encodeDynamicResult(
        Buffer.from(Object.hasOwn(records.texts, call.key) ? (records.texts[call.key] ?? '') : '', 'utf8'),
      );
    case 'contenthash':
      return encodeDynamicResult(contenthashBytes(records));
  }
}

/** The inner calls of `multicall(bytes[])`, at most MAX_MULTICALL_CALLS. */
function multicallCalls(args: Buffer): Buffer[] {
  const start = readLength(args, 0, 'the multicall');
  const count = readLength(args, start, 'the multicall');
  if (count > MAX_MULTICALL_CALLS) {
    throw unsupported(`a multicall carries at most ${MAX_MULTICALL_CALLS} calls (this one ${count})`);
  }
  const items = args.subarray(start + WORD);
  return Array.from({ length: count }, (_, i) => readBytes(items, i * WORD, `multicall call ${i}`));
}

/** bytes[] as a function result: offset, count, the offsets of the items, then each item. */
function encodeMulticallResult(results: Buffer[]): Buffer {
  const head = Buffer.alloc(WORD * (2 + results.length));
  head[WORD - 1] = WORD;
  head.writeUInt32BE(results.length, 2 * WORD - 4);
  const tails = results.map(encodeTail);
  let offset = WORD * results.length;
  tails.forEach((tail, i) => {
    head.writeUInt32BE(offset, WORD * (3 + i) - 4);
    offset += tail.length;
  });
  return Buffer.concat([head, ...tails]);
}

/** A decoded `resolve(bytes name, bytes data)`: the name and the record call(s) inside. */
export interface GatewayLookup {
  /** The normalised name, or undefined for a name this service cannot hold (every record is unset). */
  name: string | undefined;
  calls: RecordCall[];
  /** The calls came as one `multicall(bytes[])`. */
  multicall: boolean;
}

/**
 * Decodes `resolve(bytes name, bytes data)` callData down to the record calls it carries, checking every offset and
 * length, the multicall limit, and that each call is one the gateway answers; throws a ProblemError otherwise.
 */
export function decodeLookup(callData: string): GatewayLookup {
  try {
    const { selector, args } = splitCall(hexBytes(callData), 'callData');
    if (selector !== SELECTOR.resolve) throw invalid('callData is not resolve(bytes,bytes)');
    const dnsName = readBytes(args, 0, 'the name');
    let dotted: string;
    try {
      dotted = dnsDecode(dnsName);
    } catch {
      throw invalid('resolve(bytes,bytes) name is not a valid DNS-encoded name');
    }
    const data = readBytes(args, WORD, 'the resolver call');
    const { selector: inner, args: innerArgs } = splitCall(data, 'the resolver call');
    const multicall = inner === SELECTOR.multicall;
    const calls = (multicall ? multicallCalls(innerArgs) : [data]).map(decodeRecordCall);
    let name: string | undefined;
    try {
      name = normalizeName(dotted);
    } catch {
      name = undefined; // not a name this service can hold: every record is unset
    }
    return { name, calls, multicall };
  } catch (err) {
    if (!(err instanceof GatewayRequestError)) throw err;
    throw gatewayProblem(err.problem, err.message);
  }
}

function resultOf<T>(multicall: boolean, perCall: readonly T[], resultOfCall: (item: T) => Buffer): Buffer {
  const [only] = perCall;
  if (!multicall && only !== undefined) return resultOfCall(only);
  const results: Buffer[] = [];
  let bytes = 0;
  for (const item of perCall) {
    const result = resultOfCall(item);
    bytes += result.length + WORD;
    if (bytes > MAX_RESULT_BYTES) {
      throw unsupported(`the answer would exceed ${MAX_RESULT_BYTES} bytes; split the multicall`);
    }
    results.push(result);
  }
  return encodeMulticallResult(results);
}

/**
 * The ABI-encoded result of a lookup (`multicall`: its results as `bytes[]`) from one item per call, in the calls'
 * order, each turned into its call's result by `resultOfCall`; a ProblemError if it exceeds MAX_RESULT_BYTES.
 */
export function encodeLookupResult<T>(
  multicall: boolean,
  perCall: readonly T[],
  resultOfCall: (item: T) => Buffer,
): Buffer {
  try {
    return resultOf(multicall, perCall, resultOfCall);
  } catch (err) {
    if (!(err instanceof GatewayRequestError)) throw err;
    throw gatewayProblem(err.problem, err.message);
  }
}

/** The ABI-encoded result of the lookup's calls from `records` (none: every record unset); a ProblemError if too big. */
export function answerCalls(lookup: GatewayLookup, records: GatewayRecords | undefined): Buffer {
  return encodeLookupResult(lookup.multicall, lookup.calls, (call) =>
    answerRecordCall(call, records ?? EMPTY),
  );
}

/** EIP-3668 clients read `message` from an error body; problem+json carries it next to `detail`. */
export function gatewayProblem(def: ProblemDef, detail: string): ProblemError {
  return new ProblemError(def, detail, { extensions: { message: detail } });
}
