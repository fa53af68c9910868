import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AbiCoder,
  Contract,
  EnsPlugin,
  JsonRpcProvider,
  Network,
  Wallet,
  ZeroAddress,
  getAddress,
  type Interface,
} from 'ethers';
import request from 'supertest';
import {
  createProvider,
  resolverInterface,
  signOffchainResolverResponse,
  universalResolve,
} from '@nrp/chain';
import { dnsEncode, encodeAddress, encodeContenthash, namehash, type Hex } from '@nrp/ens';
import {
  ensNpmArtifacts,
  expectProblem,
  localNetworkConfig,
  startEnsChain,
  type EnsChain,
} from '@nrp/testkit';
import { ALICE, BOB, BTC, startOffchainService, type OffchainService } from './helpers';

const SIGNER = new Wallet('0x' + '5a'.repeat(32));
const BASE_COIN = 0x80000000 + 8453;
const CID_V0 = 'ipfs://QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4';
const coder = AbiCoder.defaultAbiCoder();

function resolveCall(name: string, inner: string): string {
  return resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
}
function textCall(name: string, key: string): Hex {
  return resolverInterface.encodeFunctionData('text', [namehash(name), key]) as Hex;
}
function decodeResult(iface: Interface, fn: string, data: string) {
  return iface.decodeFunctionResult(fn, data);
}

describe('CCIP-Read gateway with ENS’s OffchainResolver on anvil', () => {
  let chain: EnsChain;
  let svc: OffchainService;
  let server: Server;
  let provider: JsonRpcProvider;
  let resolverAddress: string;
  let resolver: Contract;
  let apiKey: string;
  let gatewayOrigin: string;

  beforeAll(async () => {
    chain = await startEnsChain();
    // The gateway URL must exist before the resolver is deployed: listen first, attach the app afterwards.
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gatewayOrigin = base;
    resolverAddress = await chain.ens.deployEnsOffchainResolver(
      `${base}/api/v1/gateway/{sender}/{data}.json`,
      [SIGNER.address],
    );
    await chain.ens.registerEthName('offchain', chain.accounts[0]?.address ?? '', {
      resolver: resolverAddress,
    });
    svc = await startOffchainService({
      GATEWAY_SIGNER_KEY: SIGNER.privateKey,
      GATEWAY_TTL_SECONDS: '300',
    });
    server.on('request', svc.app);
    apiKey = await svc.keyFor('offchain.eth');

    const network = new Network('sepolia', 11155111);
    network.attachPlugin(new EnsPlugin(chain.contracts.ensRegistry, 11155111));
    provider = new JsonRpcProvider(chain.anvil.rpcUrl, network, { staticNetwork: network });
    resolver = new Contract(resolverAddress, ensNpmArtifacts.offchainResolver.abi, provider);

    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', apiKey)
      .send({
        parentName: 'offchain.eth',
        label: 'alice',
        owner: ALICE,
        texts: [
          { key: 'avatar', value: 'https://example.com/alice.png' },
          { key: 'com.github', value: 'alice-gh' },
        ],
        addresses: [
          { coin: 60, value: ALICE },
          { coin: 0, value: BTC },
          { coin: BASE_COIN, value: BOB },
        ],
        contenthash: CID_V0,
      })
      .expect(201);
  });

  afterAll(async () => {
    provider?.destroy();
    await new Promise((resolve) => server?.close(resolve));
    await svc?.close();
    await chain?.stop();
  });

  it('a subname created through the API resolves with plain ethers', async () => {
    const ensResolver = await provider.getResolver('alice.offchain.eth');
    expect(ensResolver?.address).toBe(resolverAddress);
    expect(await ensResolver?.getText('avatar')).toBe('https://example.com/alice.png');
    expect(await ensResolver?.getText('com.github')).toBe('alice-gh');
    expect(await ensResolver?.getAddress()).toBe(ALICE);
    // ENSIP-11 EVM coin types decode in plain ethers; non-EVM coins need an ethers plugin (checked below as bytes).
    expect(await ensResolver?.getAddress(BASE_COIN)).toBe(BOB);
    expect(await ensResolver?.getContentHash()).toBe(CID_V0);
    expect(await provider.resolveName('alice.offchain.eth')).toBe(ALICE);
  });

  it('answers updates at once, and unknown names or records as unset', async () => {
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', apiKey)
      .send({
        parentName: 'offchain.eth',
        label: 'alice',
        addresses: [
          { coin: 60, value: BOB },
          { coin: 0, value: BTC },
        ],
      })
      .expect(200);
    expect(await provider.resolveName('alice.offchain.eth')).toBe(BOB);
    expect(await (await provider.getResolver('alice.offchain.eth'))?.getAddress(BASE_COIN)).toBeNull();
    expect(await provider.resolveName('nobody.offchain.eth')).toBeNull();
    expect(await (await provider.getResolver('nobody.offchain.eth'))?.getText('avatar')).toBe('');
    expect(await (await provider.getResolver('nobody.offchain.eth'))?.getContentHash()).toBeNull();
    // Keys named like Object.prototype's members are records like any other: unset here, not a 500.
    const alice = await provider.getResolver('alice.offchain.eth');
    for (const key of ['toString', '__proto__', 'constructor', 'hasOwnProperty'])
      expect(await alice?.getText(key)).toBe('');
  });

  it('answers multicall(bytes[]) of text, addr and contenthash in one lookup', async () => {
    const name = 'alice.offchain.eth';
    const node = namehash(name);
    const calls = [
      textCall(name, 'com.github'),
      resolverInterface.encodeFunctionData('addr(bytes32)', [node]),
      resolverInterface.encodeFunctionData('addr(bytes32,uint256)', [node, 60]),
      resolverInterface.encodeFunctionData('contenthash', [node]),
      resolverInterface.encodeFunctionData('addr(bytes32,uint256)', [node, 0]),
      textCall(name, 'missing'),
    ];
    const multicall = resolverInterface.encodeFunctionData('multicall', [calls]);
    const raw = await provider.call({
      to: resolverAddress,
      data: resolveCall(name, multicall),
      enableCcipRead: true,
    });
    const [encoded] = decodeResult(resolverInterface, 'resolve', raw);
    const [results] = decodeResult(resolverInterface, 'multicall', encoded as string) as unknown as [
      string[],
    ];
    expect(decodeResult(resolverInterface, 'text', results[0] ?? '')[0]).toBe('alice-gh');
    expect(decodeResult(resolverInterface, 'addr(bytes32)', results[1] ?? '')[0]).toBe(BOB);
    expect(
      getAddress(decodeResult(resolverInterface, 'addr(bytes32,uint256)', results[2] ?? '')[0] as string),
    ).toBe(BOB);
    expect(decodeResult(resolverInterface, 'contenthash', results[3] ?? '')[0]).toBe(
      encodeContenthash(CID_V0),
    );
    expect(decodeResult(resolverInterface, 'addr(bytes32,uint256)', results[4] ?? '')[0]).toBe(
      encodeAddress(0, BTC),
    );
    expect(decodeResult(resolverInterface, 'text', results[5] ?? '')[0]).toBe('');
  });

  it('resolves through the universal resolver, its lookups batched through the ENSIP-21 batch gateway', async () => {
    const name = 'alice.offchain.eth';
    const chainProvider = createProvider(
      localNetworkConfig(chain, { ccipReadAllowedOrigins: [gatewayOrigin] }),
    );
    try {
      const { resolver: usedResolver, results } = await universalResolve(
        chainProvider,
        chain.contracts.universalResolver,
        name,
        [textCall(name, 'avatar'), textCall(name, 'com.github')],
      );
      expect(usedResolver).toBe(resolverAddress);
      expect(results.map((r) => decodeResult(resolverInterface, 'text', r ?? '')[0])).toEqual([
        'https://example.com/alice.png',
        'alice-gh',
      ]);
    } finally {
      chainProvider.destroy();
    }
  });

  describe('answers checked by the contract', () => {
    const name = 'alice.offchain.eth';
    const callData = () => resolveCall(name, textCall(name, 'avatar'));
    const getAnswer = async () =>
      (await request(svc.app).get(`/api/v1/gateway/${resolverAddress}/${callData()}.json`).expect(200)).body
        .data as string;
    const verify = (response: string) =>
      resolver.getFunction('resolveWithProof').staticCall(response, callData()) as Promise<string>;

    it('a genuine answer (GET and POST) passes resolveWithProof', async () => {
      const viaGet = await getAnswer();
      expect(coder.decode(['string'], await verify(viaGet))[0]).toBe('https://example.com/alice.png');
      const viaPost = (
        await request(svc.app)
          .post('/api/v1/gateway')
          .send({ sender: resolverAddress, data: callData() })
          .expect(200)
      ).body.data as string;
      expect(coder.decode(['string'], await verify(viaPost))[0]).toBe('https://example.com/alice.png');
      const [, expires] = coder.decode(['bytes', 'uint64', 'bytes'], viaPost);
      const now = Math.floor(Date.now() / 1000);
      expect(Number(expires)).toBeGreaterThan(now + 250);
      expect(Number(expires)).toBeLessThanOrEqual(now + 301);
    });

    it('a tampered result, a moved expiry or a foreign signer is rejected', async () => {
      const [result, expires, sig] = coder.decode(['bytes', 'uint64', 'bytes'], await getAnswer());
      const evil = coder.encode(['string'], ['https://evil.example/x.png']);
      await expect(verify(coder.encode(['bytes', 'uint64', 'bytes'], [evil, expires, sig]))).rejects.toThrow(
        /SignatureVerifier: Invalid sigature/,
      );
      const later = BigInt(expires as bigint) + 1000n;
      await expect(verify(coder.encode(['bytes', 'uint64', 'bytes'], [result, later, sig]))).rejects.toThrow(
        /SignatureVerifier: Invalid sigature/,
      );
      const foreign = signOffchainResolverResponse({
        signerKey: Wallet.createRandom().privateKey,
        sender: resolverAddress,
        request: callData(),
        result: result as string,
        expires: expires as bigint,
      });
      await expect(verify(foreign)).rejects.toThrow(/SignatureVerifier: Invalid sigature/);
      // positive control: the untouched answer still passes
      await expect(
        verify(coder.encode(['bytes', 'uint64', 'bytes'], [result, expires, sig])),
      ).resolves.toBeDefined();
    });

    // Last: it moves the chain's clock past the answer's expiry.
    it('an expired answer is rejected', async () => {
      const answer = await getAnswer();
      await expect(verify(answer)).resolves.toBeDefined();
      await provider.send('evm_increaseTime', [400]);
      await provider.send('evm_mine', []);
      await expect(verify(answer)).rejects.toThrow(/SignatureVerifier: Signature expired/);
    });
  });

  describe('bad gateway requests', () => {
    const get = (sender: string, data: string) =>
      request(svc.app).get(`/api/v1/gateway/${sender}/${data}.json`);
    /** The kit's problem check, and a `message` on every gateway problem but a schema's INVALID_INPUT. */
    const expectGatewayProblem = (res: request.Response, status: number, code: string) => {
      expectProblem(res, status, code);
      expect(typeof res.body.message).toBe(code.startsWith('INVALID_INPUT') ? 'undefined' : 'string');
    };

    it('400 INVALID_INPUT for a bad sender or non-hex data (GET and POST)', async () => {
      expectGatewayProblem(await get('0x1234', '0x00'), 400, 'INVALID_INPUT');
      expectGatewayProblem(await get(resolverAddress, 'nothex'), 400, 'INVALID_INPUT');
      expectGatewayProblem(
        await request(svc.app).post('/api/v1/gateway').send({ sender: resolverAddress }),
        400,
        'INVALID_INPUT',
      );
    });

    it('400 INVALID_CCIP_REQUEST for callData that is not resolve(bytes,bytes)', async () => {
      expectGatewayProblem(
        await get(resolverAddress, textCall('a.offchain.eth', 'x')),
        400,
        'INVALID_CCIP_REQUEST',
      );
      const badName = resolverInterface.encodeFunctionData('resolve', [
        '0x05616c696365',
        textCall('a.eth', 'x'),
      ]);
      expectGatewayProblem(await get(resolverAddress, badName), 400, 'INVALID_CCIP_REQUEST');
    });

    it('400 UNSUPPORTED_RESOLVER_CALL for other functions and nested multicalls', async () => {
      const name = 'alice.offchain.eth';
      const nameCall = resolverInterface.encodeFunctionData('name', [namehash(name)]);
      expectGatewayProblem(
        await get(resolverAddress, resolveCall(name, nameCall)),
        400,
        'UNSUPPORTED_RESOLVER_CALL',
      );
      expectGatewayProblem(
        await get(resolverAddress, resolveCall(name, '0xdeadbeef')),
        400,
        'UNSUPPORTED_RESOLVER_CALL',
      );
      const nested = resolverInterface.encodeFunctionData('multicall', [
        [resolverInterface.encodeFunctionData('multicall', [[textCall(name, 'x')]])],
      ]);
      expectGatewayProblem(
        await get(resolverAddress, resolveCall(name, nested)),
        400,
        'UNSUPPORTED_RESOLVER_CALL',
      );
    });

    it('503 GATEWAY_NOT_CONFIGURED without a signing key', async () => {
      const bare = await startOffchainService();
      try {
        const name = 'alice.offchain.eth';
        const res = await request(bare.app).get(
          `/api/v1/gateway/${resolverAddress}/${resolveCall(name, textCall(name, 'a'))}.json`,
        );
        expectGatewayProblem(res, 503, 'GATEWAY_NOT_CONFIGURED');
      } finally {
        await bare.close();
      }
    });

    it("signs for the request's sender", async () => {
      const other = await startOffchainService({ GATEWAY_SIGNER_KEY: SIGNER.privateKey });
      try {
        const name = 'nobody.offchain.eth';
        const data = resolveCall(
          name,
          resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(name)]),
        );
        const sender = getAddress('0x' + '11'.repeat(20));
        const answer = (await request(other.app).get(`/api/v1/gateway/${sender}/${data}.json`).expect(200))
          .body.data;
        const [result, expires, sig] = coder.decode(['bytes', 'uint64', 'bytes'], answer);
        expect(coder.decode(['address'], result as string)[0]).toBe(ZeroAddress);
        const expected = signOffchainResolverResponse({
          signerKey: SIGNER.privateKey,
          sender,
          request: data,
          result: result as string,
          expires: expires as bigint,
        });
        expect(coder.decode(['bytes', 'uint64', 'bytes'], expected)[2]).toBe(sig);
      } finally {
        await other.close();
      }
    });
  });

  it('counts its answers by outcome at /metrics', async () => {
    const count = async (outcome: string) => {
      const text = (await request(svc.app).get('/metrics').expect(200)).text;
      const line = text
        .split('\n')
        .find((l) => l.startsWith('ccip_gateway_answers_total{') && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const signed = await count('signed');
    const invalid = await count('INVALID_CCIP_REQUEST');
    const name = 'alice.offchain.eth';
    await request(svc.app)
      .get(`/api/v1/gateway/${resolverAddress}/${resolveCall(name, textCall(name, 'avatar'))}.json`)
      .expect(200);
    await request(svc.app)
      .get(`/api/v1/gateway/${resolverAddress}/${textCall(name, 'x')}.json`)
      .expect(400);
    expect(await count('signed')).toBe(signed + 1);
    expect(await count('INVALID_CCIP_REQUEST')).toBe(invalid + 1);
  });
});
