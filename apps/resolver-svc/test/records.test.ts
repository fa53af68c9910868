import { AbiCoder } from 'ethers';
import { UpstreamError, resolverInterface } from '@nrp/chain';
import { encodeAddress, encodeContenthash, namehash, type Hex } from '@nrp/ens';
import {
  DEFAULT_COIN_TYPES,
  decodeAddressRecord,
  decodeContenthashRecord,
  decodeRecords,
  decodeTextRecord,
  recordCalls,
  selectionKeys,
} from '../src/resolution/records';

const abi = AbiCoder.defaultAbiCoder();
const bytesAnswer = (hex: string) => abi.encode(['bytes'], [hex]) as Hex;
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('records', () => {
  it('the default coin types are the 8 default chains (ENSIP-11 for EVM chains)', () => {
    expect(DEFAULT_COIN_TYPES).toEqual([
      60, 0, 501, 0x80002105, 0x8000000a, 0x8000a4b1, 0x80000089, 0x80000038,
    ]);
  });

  it('recordCalls: texts, then addr per coin type, then contenthash, for the name', () => {
    const calls = recordCalls('alice.eth', { texts: ['avatar'], coins: [0], contenthash: true });
    expect(calls).toHaveLength(3);
    const node = namehash('alice.eth');
    expect(resolverInterface.decodeFunctionData('text', calls[0] ?? '0x')).toEqual([node, 'avatar']);
    expect(resolverInterface.decodeFunctionData('addr(bytes32,uint256)', calls[1] ?? '0x')).toEqual([
      node,
      0n,
    ]);
    expect(resolverInterface.decodeFunctionData('contenthash', calls[2] ?? '0x')).toEqual([node]);
  });

  it('selectionKey ignores the order of keys and coins', () => {
    const selectionKey = selectionKeys();
    expect(selectionKey({ texts: ['a', 'b'], coins: [60, 0], contenthash: false })).toBe(
      selectionKey({ texts: ['b', 'a'], coins: [0, 60], contenthash: false }),
    );
    expect(selectionKey({ texts: ['a'], coins: [], contenthash: true })).not.toBe(
      selectionKey({ texts: ['a'], coins: [], contenthash: false }),
    );
  });

  it('decodes addresses into native formats, raw hex when there is none', () => {
    expect(decodeAddressRecord(60, bytesAnswer(ADDRESS.toLowerCase()))).toEqual({
      coin: 60,
      chain: 'eth',
      exists: true,
      value: ADDRESS,
    });
    expect(
      decodeAddressRecord(0, bytesAnswer(encodeAddress(0, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'))).value,
    ).toBe('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    // 3 bytes cannot be an EVM address; a coin type without a codec: both raw hex
    expect(decodeAddressRecord(60, bytesAnswer('0x010203'))).toMatchObject({
      exists: true,
      value: '0x010203',
    });
    expect(decodeAddressRecord(999999, bytesAnswer('0xabcd'))).toEqual({
      coin: 999999,
      chain: '',
      exists: true,
      value: '0xabcd',
    });
    expect(decodeAddressRecord(60, null)).toEqual({ coin: 60, chain: 'eth', exists: false, value: '' });
    expect(decodeAddressRecord(60, bytesAnswer('0x'))).toMatchObject({ exists: false, value: '' });
  });

  it('decodes the contenthash to its URI, raw hex for an unknown codec', () => {
    const uri = 'ipfs://bafybeibj6lixxzqtsb45ysdjnupvqkufgdvzqbnvmhw2kf7cfkesy7r7d4';
    expect(decodeContenthashRecord(bytesAnswer(encodeContenthash(uri)))).toEqual({
      exists: true,
      value: uri,
    });
    expect(decodeContenthashRecord(bytesAnswer('0xdeadbeef'))).toEqual({ exists: true, value: '0xdeadbeef' });
    expect(decodeContenthashRecord(null)).toEqual({ exists: false, value: '' });
  });

  it('a resolver answer that does not decode is an upstream failure', () => {
    expect(() => decodeTextRecord('avatar', '0x1234')).toThrow(UpstreamError);
  });

  it('decodeRecords maps answers back in call order', () => {
    const selection = { texts: ['name', 'url'], coins: [60], contenthash: false };
    const records = decodeRecords(selection, null, [
      abi.encode(['string'], ['Alice']) as Hex,
      null,
      bytesAnswer(ADDRESS),
    ]);
    expect(records).toEqual({
      resolver: null,
      texts: [
        { key: 'name', exists: true, value: 'Alice' },
        { key: 'url', exists: false, value: '' },
      ],
      addresses: [{ coin: 60, chain: 'eth', exists: true, value: ADDRESS }],
    });
  });
});
