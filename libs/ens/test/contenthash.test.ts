import { decodeContenthash, encodeContenthash, InvalidContenthashError } from '../src';

// ENSIP-7 / EIP-1577 vectors
const IPFS_V0 = 'QmRAQB6YaCyidP37UdDnjFY5vQuiBrcqdyoW1CuDgwxkD4';
const IPFS_V1 = 'bafybeibj6lixxzqtsb45ysdjnupvqkufgdvzqbnvmhw2kf7cfkesy7r7d4';
const IPFS_HEX = '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f';
const SWARM = 'd1de9994b4d039f6548d191eb26786769f580809256b4685ef316805265ea162';
const SWARM_HEX = `0xe40101fa011b20${SWARM}`;

describe('contenthash', () => {
  it('encodes IPFS CIDv0 and CIDv1 to the same ENSIP-7 bytes', () => {
    expect(encodeContenthash(`ipfs://${IPFS_V0}`)).toBe(IPFS_HEX);
    expect(encodeContenthash(`ipfs://${IPFS_V1}`)).toBe(IPFS_HEX);
    expect(encodeContenthash(`/ipfs/${IPFS_V0}/`)).toBe(IPFS_HEX);
    expect(decodeContenthash(IPFS_HEX)).toBe(`ipfs://${IPFS_V1}`);
  });

  it('encodes Swarm', () => {
    expect(encodeContenthash(`bzz://${SWARM}`)).toBe(SWARM_HEX);
    expect(decodeContenthash(SWARM_HEX)).toBe(`bzz://${SWARM}`);
  });

  it.each([
    ['ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8', '0xe5010172'],
    ['sia://CABAB_1Dt0FJsxqsu_J4TodNCbCGvtFf1Uys_3EgzOlTcg', '0x90b2c605'],
    ['ar://ys32Pt8uC7TrVxHdOLByOspfPEq2LO63wREHQIM9SJQ', '0x90b2ca05'],
    ['onion://zqktlwi4fecvo6ri', '0xbc03'],
    ['onion3://p53lf57qovyuvwsc6xnrppyply3vtqm7l6pcobkmyqsiofyeznfu5uqd', '0xbd03'],
  ])('round-trips %s', (uri, prefix) => {
    const hex = encodeContenthash(uri);
    expect(hex.startsWith(prefix)).toBe(true);
    expect(decodeContenthash(hex)).toBe(uri);
  });

  it('decodes an empty record as null', () => {
    expect(decodeContenthash('0x')).toBeNull();
    expect(decodeContenthash('')).toBeNull();
  });

  it.each([
    'https://example.com',
    'ipfs://',
    'ipfs://not-a-cid',
    `ipfs://${IPFS_V0}/index.html`,
    'ipns://app.uniswap.org',
    'bzz://1234',
    'ar://short',
    'onion://UPPERCASE0000000',
    IPFS_V0,
  ])('rejects %s', (uri) => {
    expect(() => encodeContenthash(uri)).toThrow(InvalidContenthashError);
  });

  it('rejects malformed and unknown-codec bytes', () => {
    expect(() => decodeContenthash('0x123')).toThrow(InvalidContenthashError);
    expect(() => decodeContenthash('0x0102')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONTENTHASH' }),
    );
  });
});
