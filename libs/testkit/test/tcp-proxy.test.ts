import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTcpProxy, type TcpProxy } from '../src';

let target: Server;
let hits = 0;
let proxy: TcpProxy;

beforeAll(async () => {
  target = createServer((_req, res) => {
    hits++;
    res.end('answered');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  proxy = await startTcpProxy({ host: '127.0.0.1', port: (target.address() as AddressInfo).port });
});

afterAll(async () => {
  await proxy.stop();
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

const get = (timeoutMs: number) =>
  fetch(proxy.url, { signal: AbortSignal.timeout(timeoutMs) }).then(
    (res) => res.text(),
    (err: Error) => err.name,
  );

describe('startTcpProxy', () => {
  it('forwards, stalls (the target never sees the request), holds answers back, and forwards again', async () => {
    expect(await get(2000)).toBe('answered');
    expect(hits).toBe(1);

    proxy.setMode('stall');
    expect(await get(300)).toBe('TimeoutError');
    expect(hits).toBe(1);

    proxy.setMode('hold-responses');
    const held = get(2000);
    await proxy.waitForHeld(/^HTTP\/1\.1 200[\s\S]*answered/);
    expect(hits).toBe(2);
    expect(await held).toBe('TimeoutError');

    proxy.setMode('forward');
    expect(await get(2000)).toBe('answered');
  });

  it('delivers the held answers late when released', async () => {
    proxy.setMode('hold-responses');
    let answered = false;
    const slow = get(5000).then((text) => ((answered = true), text));
    await proxy.waitForHeld(/answered/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    proxy.releaseHeld();
    expect(await slow).toBe('answered');
    expect(await get(2000)).toBe('answered');
  });

  it('without a target it only stalls; waitForHeld gives up after its timeout', async () => {
    const hole = await startTcpProxy();
    try {
      expect(
        await fetch(hole.url, { signal: AbortSignal.timeout(300) }).then(
          () => 'answered',
          (err: Error) => err.name,
        ),
      ).toBe('TimeoutError');
      await expect(hole.waitForHeld(/HTTP/, 100)).rejects.toThrow(/no held answer/);
    } finally {
      await hole.stop();
    }
  });
});
