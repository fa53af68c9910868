import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AbiCoder, Wallet, ZeroAddress, dataSlice, getAddress, hexlify, toUtf8Bytes } from 'ethers';
import { decodeResolveCall, resolverInterface, signOffchainResolverResponse } from '@nrp/chain';

/** Records the gateway serves for one name. */
export interface GatewayRecord {
  /** ETH address (coin type 60). */
  addr?: string;
  /** Other coin types: coinType (decimal) → address bytes (0x-hex). */
  addresses?: Record<string, string>;
  texts?: Record<string, string>;
  /** Contenthash bytes (0x-hex). */
  contenthash?: string;
}

/** `http-500`: answer 500; `garbage`: 200 with undecodable data; `bad-signature`: signed by another key; `hang`: never answer. */
export type GatewayFault = 'http-500' | 'garbage' | 'bad-signature' | 'hang';

export interface TestGatewayOptions {
  /** Private key the OffchainResolver trusts. */
  signerKey: string;
  /** name → records; names not listed answer empty records. Mutable: tests may edit it after start. */
  records?: Record<string, GatewayRecord>;
  /** Validity of each signed answer, default 300 seconds. */
  ttlSeconds?: number;
}

export interface TestGateway {
  /** EIP-3668 URL template: `http://127.0.0.1:<port>/{sender}/{data}.json`. */
  url: string;
  port: number;
  /** Address of the signer key (pass it to the OffchainResolver constructor). */
  signerAddress: string;
  records: Record<string, GatewayRecord>;
  /** Number of requests received (faulty ones included). */
  requestCount(): number;
  setFault(kind: GatewayFault | null): void;
  stop(): Promise<void>;
}

const abi = AbiCoder.defaultAbiCoder();
const SELECTORS = {
  addr: resolverInterface.getFunction('addr(bytes32)')?.selector,
  addrCoin: resolverInterface.getFunction('addr(bytes32,uint256)')?.selector,
  text: resolverInterface.getFunction('text')?.selector,
  contenthash: resolverInterface.getFunction('contenthash')?.selector,
  name: resolverInterface.getFunction('name')?.selector,
  multicall: resolverInterface.getFunction('multicall')?.selector,
};

/** ABI-encoded answer of one resolver call for `record` ('0x' for unsupported calls). */
export function answerResolverCall(record: GatewayRecord | undefined, data: string): string {
  const selector = data.length >= 10 ? dataSlice(data, 0, 4) : '0x';
  switch (selector) {
    case SELECTORS.addr:
      return abi.encode(['address'], [record?.addr ?? ZeroAddress]);
    case SELECTORS.addrCoin: {
      const [, coinType] = resolverInterface.decodeFunctionData('addr(bytes32,uint256)', data) as unknown as [
        string,
        bigint,
      ];
      const value =
        coinType === 60n && record?.addr ? record.addr.toLowerCase() : record?.addresses?.[String(coinType)];
      return abi.encode(['bytes'], [value ?? '0x']);
    }
    case SELECTORS.text: {
      const [, key] = resolverInterface.decodeFunctionData('text', data) as unknown as [string, string];
      const texts = record?.texts ?? {};
      return abi.encode(['string'], [Object.hasOwn(texts, key) ? (texts[key] ?? '') : '']);
    }
    case SELECTORS.contenthash:
      return abi.encode(['bytes'], [record?.contenthash ?? '0x']);
    case SELECTORS.name:
      return abi.encode(['string'], ['']);
    case SELECTORS.multicall: {
      const [calls] = resolverInterface.decodeFunctionData('multicall', data) as unknown as [string[]];
      return abi.encode(['bytes[]'], [calls.map((call) => answerResolverCall(record, call))]);
    }
    default:
      return '0x';
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(JSON.stringify(body));
}

/** A tiny EIP-3668 gateway for ENS's OffchainResolver, answering from an in-memory record map. */
export async function startTestGateway(opts: TestGatewayOptions): Promise<TestGateway> {
  const records = opts.records ?? {};
  const ttlSeconds = opts.ttlSeconds ?? 300;
  let fault: GatewayFault | null = null;
  let count = 0;
  const wrongKey = Wallet.createRandom().privateKey;

  const server = createServer((req, res) => {
    count++;
    void (async () => {
      let sender: string | undefined;
      let callData: string | undefined;
      const match = /^\/(0x[0-9a-fA-F]{40})\/(0x[0-9a-fA-F]*)(?:\.json)?$/.exec(req.url ?? '');
      if (req.method === 'GET' && match) {
        [, sender, callData] = match;
      } else if (req.method === 'POST') {
        const body = JSON.parse(await readBody(req)) as { sender?: unknown; data?: unknown };
        if (typeof body.sender === 'string') sender = body.sender;
        if (typeof body.data === 'string') callData = body.data;
      }
      if (!sender || !callData) return sendJson(res, 400, { message: 'expected /{sender}/{data}.json' });
      if (fault === 'hang') return;
      if (fault === 'http-500') return sendJson(res, 500, { message: 'test gateway fault' });
      if (fault === 'garbage') return sendJson(res, 200, { data: hexlify(toUtf8Bytes('garbage')) });
      let name: string;
      let data: string;
      try {
        ({ name, data } = decodeResolveCall(callData));
      } catch (err) {
        return sendJson(res, 400, { message: err instanceof Error ? err.message : 'bad request' });
      }
      const result = answerResolverCall(records[name], data);
      const signed = signOffchainResolverResponse({
        signerKey: fault === 'bad-signature' ? wrongKey : opts.signerKey,
        sender: getAddress(sender),
        request: callData,
        result,
        expires: Math.floor(Date.now() / 1000) + ttlSeconds,
      });
      return sendJson(res, 200, { data: signed });
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { message: err instanceof Error ? err.message : String(err) });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/{sender}/{data}.json`,
    port,
    signerAddress: new Wallet(opts.signerKey).address,
    records,
    requestCount: () => count,
    setFault: (kind) => {
      fault = kind;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
