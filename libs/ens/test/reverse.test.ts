import { InvalidAddressError, namehash, reverseNodeName } from '../src';

describe('reverseNodeName', () => {
  it('builds <lowercase hex>.addr.reverse', () => {
    const name = reverseNodeName('0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045');
    expect(name).toBe('d8da6bf26964af9d7eed9e03e53415d37aa96045.addr.reverse');
    expect(namehash(name)).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('rejects non-addresses', () => {
    expect(() => reverseNodeName('0x1234')).toThrow(InvalidAddressError);
    expect(() => reverseNodeName('vitalik.eth')).toThrow(/40 hex digits/);
  });
});
