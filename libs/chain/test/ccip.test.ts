import {
  AbiCoder,
  Contract,
  JsonRpcProvider,
  Wallet,
  getBytes,
  hashMessage,
  keccak256,
  recoverAddress,
  solidityPackedKeccak256,
} from 'ethers';
import { dnsEncode, namehash } from '@nrp/ens';
import { startEnsChain, type EnsChain } from '@nrp/testkit/src/ens-fixture';
import {
  CcipRequestError,
  OFFCHAIN_RESOLVER_ABI,
  decodeResolveCall,
  offchainResolverSignatureHash,
  resolverInterface,
  signOffchainResolverResponse,
} from '../src';

const abi = AbiCoder.defaultAbiCoder();
const signer = new Wallet('0x' + '11'.repeat(32));
const inner = resolverInterface.encodeFunctionData('text', [namehash('a.example.eth'), 'avatar']);
const request = resolverInterface.encodeFunctionData('resolve', [dnsEncode('a.example.eth'), inner]);
const result = abi.encode(['string'], ['https://img.example/a.png']);

describe('decodeResolveCall', () => {
  it('decodes the DNS name and inner call of resolve(bytes,bytes)', () => {
    expect(decodeResolveCall(request)).toEqual({ name: 'a.example.eth', data: inner });
  });

  it('rejects other calls and bad DNS names with CcipRequestError', () => {
    expect(() => decodeResolveCall(inner)).toThrow(CcipRequestError);
    const badName = resolverInterface.encodeFunctionData('resolve', ['0x05616263', inner]);
    expect(() => decodeResolveCall(badName)).toThrow(CcipRequestError);
  });
});

describe('signOffchainResolverResponse', () => {
  const sender = '0x00000000000000000000000000000000000000aa';

  it('signs the raw makeSignatureHash digest and encodes (result, expires, sig)', () => {
    const response = signOffchainResolverResponse({
      signerKey: signer.privateKey,
      sender,
      request,
      result,
      expires: 1000,
    });
    const [decodedResult, expires, sig] = abi.decode(['bytes', 'uint64', 'bytes'], response) as unknown as [
      string,
      bigint,
      string,
    ];
    expect(decodedResult).toBe(result);
    expect(expires).toBe(1000n);
    const digest = offchainResolverSignatureHash({ sender, expires: 1000, request, result });
    expect(recoverAddress(digest, sig)).toBe(signer.address);
    // not EIP-191 prefixed: recovering as a personal-sign message of the digest gives another address
    expect(recoverAddress(hashMessage(getBytes(digest)), sig)).not.toBe(signer.address);
  });

  it('packs and encodes by hand exactly as the ABI does, whatever the result length', () => {
    for (const length of [0, 1, 31, 32, 33, 100]) {
      const bytes = `0x${'ab'.repeat(length)}`;
      const expires = 2n ** 64n - 1n;
      const digest = offchainResolverSignatureHash({ sender, expires, request, result: bytes });
      expect(digest).toBe(
        solidityPackedKeccak256(
          ['bytes', 'address', 'uint64', 'bytes32', 'bytes32'],
          ['0x1900', sender, expires, keccak256(request), keccak256(bytes)],
        ),
      );
      const response = signOffchainResolverResponse({
        signerKey: signer.privateKey,
        sender,
        request,
        result: bytes,
        expires,
      });
      const sig = signer.signingKey.sign(digest).serialized;
      expect(response).toBe(abi.encode(['bytes', 'uint64', 'bytes'], [bytes, expires, sig]));
      // The result as bytes (a gateway's own answer, sliced out of a larger buffer) signs the same.
      const inLargerBuffer = Buffer.concat([
        Buffer.from('ff', 'hex'),
        getBytes(bytes),
        Buffer.from('ff', 'hex'),
      ]);
      const asBytes = { signerKey: signer.privateKey, sender, request, expires };
      expect(
        signOffchainResolverResponse({ ...asBytes, result: inLargerBuffer.subarray(1, 1 + length) }),
      ).toBe(response);
    }
  });

  it("makes the signature ethers' SigningKey makes (RFC 6979, low s, v 27 or 28), whatever the key", () => {
    const vs = new Set<number>();
    for (let i = 0; i < 24; i += 1) {
      const wallet = Wallet.createRandom();
      const bytes = keccak256(`0x${i.toString(16).padStart(2, '0')}`);
      const digest = offchainResolverSignatureHash({ sender, expires: i, request, result: bytes });
      const expected = wallet.signingKey.sign(digest);
      vs.add(expected.v);
      const response = signOffchainResolverResponse({
        signerKey: wallet.privateKey,
        sender,
        request,
        result: bytes,
        expires: i,
      });
      expect(response).toBe(abi.encode(['bytes', 'uint64', 'bytes'], [bytes, i, expected.serialized]));
    }
    expect([...vs].sort()).toEqual([27, 28]);
  });

  describe("against ENS's OffchainResolver contract", () => {
    let chain: EnsChain;
    let provider: JsonRpcProvider;
    let resolver: Contract;
    let address: string;

    beforeAll(async () => {
      chain = await startEnsChain();
      address = await chain.ens.deployEnsOffchainResolver('http://127.0.0.1:1/{sender}/{data}.json', [
        signer.address,
      ]);
      provider = new JsonRpcProvider(chain.anvil.rpcUrl, undefined, { staticNetwork: true });
      resolver = new Contract(address, OFFCHAIN_RESOLVER_ABI, provider);
    });

    afterAll(async () => {
      provider?.destroy();
      await chain?.stop();
    });

    it('computes the same digest as SignatureVerifier.makeSignatureHash', async () => {
      const onchain = await resolver
        .getFunction('makeSignatureHash')
        .staticCall(address, 1234n, request, result);
      expect(onchain).toBe(
        offchainResolverSignatureHash({ sender: address, expires: 1234n, request, result }),
      );
    });

    it('resolveWithProof accepts our response, and rejects a wrong target or an expired one', async () => {
      const expires = Math.floor(Date.now() / 1000) + 600;
      const good = signOffchainResolverResponse({
        signerKey: signer.privateKey,
        sender: address,
        request,
        result,
        expires,
      });
      expect(await resolver.getFunction('resolveWithProof').staticCall(good, request)).toBe(result);

      const wrongTarget = signOffchainResolverResponse({
        signerKey: signer.privateKey,
        sender,
        request,
        result,
        expires,
      });
      await expect(
        resolver.getFunction('resolveWithProof').staticCall(wrongTarget, request),
      ).rejects.toThrow();

      const expired = signOffchainResolverResponse({
        signerKey: signer.privateKey,
        sender: address,
        request,
        result,
        expires: 1,
      });
      await expect(resolver.getFunction('resolveWithProof').staticCall(expired, request)).rejects.toThrow(
        /expired/,
      );
    });
  });
});
