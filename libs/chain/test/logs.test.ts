import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcProvider, zeroPadValue } from 'ethers';
import { ensRegistryInterface, readBlock, readLogs, UpstreamError } from '../src';

const REGISTRY = '0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e';
const transferTopic = ensRegistryInterface.getEvent('Transfer')?.topicHash ?? '';

/** A JSON-RPC node answering every call with `logs` (a block for eth_getBlockByNumber) and eth_chainId with sepolia's. */
async function fakeNode(logs: unknown): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string };
      const result = call.method === 'eth_chainId' ? '0xaa36a7' : logs;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function log(data: string, logIndex: number, blockNumber = 5) {
  return {
    address: REGISTRY,
    topics: [transferTopic, zeroPadValue('0x01', 32)],
    data,
    blockNumber: `0x${blockNumber.toString(16)}`,
    blockHash: zeroPadValue('0x0b', 32),
    transactionHash: zeroPadValue('0x0c', 32),
    transactionIndex: '0x0',
    logIndex: `0x${logIndex.toString(16)}`,
    removed: false,
  };
}

describe('readLogs', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  async function read(logs: unknown[]) {
    const node = await fakeNode(logs);
    servers.push(node.server);
    const provider = new JsonRpcProvider(node.url, 11155111, { staticNetwork: true });
    try {
      return await readLogs(provider, [{ address: REGISTRY, abi: ensRegistryInterface }], 1, 10, 'test');
    } finally {
      provider.destroy();
    }
  }

  it('decodes the logs in chain order', async () => {
    const owner = zeroPadValue('0x02', 32);
    const decoded = await read([log(owner, 3, 6), log(owner, 1, 5)]);
    expect(decoded.map((l) => [l.blockNumber, l.logIndex, l.event.name])).toEqual([
      [5, 1, 'Transfer'],
      [6, 3, 'Transfer'],
    ]);
  });

  it('a log that does not decode as its event (garbage from the node) is an UpstreamError, not a partial read', async () => {
    const owner = zeroPadValue('0x02', 32);
    await expect(read([log(owner, 1), log('0x1234', 2)])).rejects.toBeInstanceOf(UpstreamError);
  });

  it('a log of a block outside the range read, or a list of no logs, is garbage (UpstreamError)', async () => {
    const owner = zeroPadValue('0x02', 32);
    await expect(read([log(owner, 1, 11)])).rejects.toBeInstanceOf(UpstreamError);
    await expect(read([{ address: 'garbage' }])).rejects.toBeInstanceOf(UpstreamError);
  });

  it('readBlock: an answer that is not the block asked for is an UpstreamError', async () => {
    const node = await fakeNode([]);
    servers.push(node.server);
    const provider = new JsonRpcProvider(node.url, 11155111, { staticNetwork: true });
    try {
      await expect(readBlock(provider, 5, 'test')).rejects.toBeInstanceOf(UpstreamError);
    } finally {
      provider.destroy();
    }
  });

  it('readBlock latest: the head the node answers, a block without a number is an UpstreamError', async () => {
    const head = { number: '0x7', hash: zeroPadValue('0x0b', 32), timestamp: '0x10' };
    for (const [answer, expected] of [
      [head, { number: 7, hash: head.hash, timestamp: 16 }],
      [{ ...head, number: 'seven' }, undefined],
    ] as const) {
      const node = await fakeNode(answer);
      servers.push(node.server);
      const provider = new JsonRpcProvider(node.url, 11155111, { staticNetwork: true });
      try {
        const read = readBlock(provider, 'latest', 'test');
        await (expected
          ? expect(read).resolves.toEqual(expected)
          : expect(read).rejects.toBeInstanceOf(UpstreamError));
      } finally {
        provider.destroy();
      }
    }
  });

  it('a node that is not there is an UpstreamError', async () => {
    const provider = new JsonRpcProvider('http://127.0.0.1:9', 11155111, { staticNetwork: true });
    try {
      await expect(
        readLogs(provider, [{ address: REGISTRY, abi: ensRegistryInterface }], 1, 10, 'test'),
      ).rejects.toBeInstanceOf(UpstreamError);
    } finally {
      provider.destroy();
    }
  });
});
