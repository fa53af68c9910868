import {
  encodedLabelhash,
  InvalidTokenIdError,
  labelhash,
  namehash,
  namehashFromTokenId,
  tokenIdFromNamehash,
} from '../src';

const ZERO = `0x${'0'.repeat(64)}`;
const ETH_NODE = '0x93cdeb708b7545dc668eb9280176169d1c33cfd8ed6f04690a0bcc88a93fc4ae';
const FOO_ETH_NODE = '0xde9b09fd7c5f901e23a3f19fecc54828e9c848539801e86591bd9801b019f84f';
const ETH_LABELHASH = '0x4f5b812789fc606be1b3b16908db13fc7a9adf7ca72641f84d75b47069d3d7f0';

describe('namehash (EIP-137 vectors)', () => {
  it.each([
    ['', ZERO],
    ['eth', ETH_NODE],
    ['foo.eth', FOO_ETH_NODE],
    // addr.reverse, well-known node of the reverse registrar
    ['addr.reverse', '0x91d1777781884d03a6757a803996e38de2a42967fb37eeaca72729271025a9e2'],
  ])('namehash(%j)', (name, node) => {
    expect(namehash(name)).toBe(node);
  });

  it('treats an encoded label [<labelhash>] as its hash', () => {
    expect(namehash(`[${ETH_LABELHASH.slice(2)}]`)).toBe(ETH_NODE);
    expect(namehash(`foo.[${ETH_LABELHASH.slice(2).toUpperCase()}]`)).toBe(FOO_ETH_NODE);
  });
});

describe('labelhash', () => {
  it('hashes labels', () => {
    expect(labelhash('eth')).toBe(ETH_LABELHASH);
    expect(labelhash('')).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it('passes encoded labels through', () => {
    expect(labelhash(`[${ETH_LABELHASH.slice(2)}]`)).toBe(ETH_LABELHASH);
    expect(encodedLabelhash(`[${ETH_LABELHASH.slice(2)}]`)).toBe(ETH_LABELHASH);
    expect(encodedLabelhash('eth')).toBeUndefined();
    // not 64 hex digits: an ordinary label
    expect(labelhash('[abc]')).not.toBe('0xabc');
  });
});

describe('token ids', () => {
  const FOO_ETH_ID = '100687382630207452182552124992380359340282681784978135003332851042988456540239';

  it('converts a namehash to a decimal token id and back', () => {
    expect(tokenIdFromNamehash(FOO_ETH_NODE)).toBe(FOO_ETH_ID);
    expect(namehashFromTokenId(FOO_ETH_ID)).toBe(FOO_ETH_NODE);
    expect(namehashFromTokenId(BigInt(FOO_ETH_ID))).toBe(FOO_ETH_NODE);
    expect(namehashFromTokenId(FOO_ETH_NODE)).toBe(FOO_ETH_NODE);
    expect(namehashFromTokenId('0x1')).toBe(`0x${'0'.repeat(63)}1`);
    expect(tokenIdFromNamehash(ZERO)).toBe('0');
  });

  it.each(['', '-1', '1.5', 'abc', '0x', `0x${'f'.repeat(65)}`, (1n << 256n).toString()])(
    'rejects token id %j',
    (id) => {
      expect(() => namehashFromTokenId(id)).toThrow(InvalidTokenIdError);
    },
  );

  it('rejects a negative bigint and a short namehash', () => {
    expect(() => namehashFromTokenId(-1n)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN_ID' }));
    expect(() => tokenIdFromNamehash('0x1234')).toThrow(InvalidTokenIdError);
  });
});
