import { dnsDecode, dnsEncode, InvalidDnsEncodingError, labelhash } from '../src';

describe('dnsEncode / dnsDecode', () => {
  it.each([
    ['', '0x00'],
    ['eth', '0x0365746800'],
    ['foo.eth', '0x03666f6f0365746800'],
    ['sub.nick.eth', '0x03737562046e69636b0365746800'],
    ['💩.eth', '0x04f09f92a90365746800'],
  ])('%j ↔ %s', (name, hex) => {
    expect(dnsEncode(name)).toBe(hex);
    expect(dnsDecode(hex as `0x${string}`)).toBe(name);
  });

  it('decodes bytes as well as hex', () => {
    expect(dnsDecode(Uint8Array.from([3, 0x66, 0x6f, 0x6f, 0]))).toBe('foo');
  });

  it('replaces a label longer than 255 bytes by its encoded labelhash', () => {
    const long = 'a'.repeat(300);
    const encodedLabel = `[${labelhash(long).slice(2)}]`;
    expect(dnsDecode(dnsEncode(`${long}.eth`))).toBe(`${encodedLabel}.eth`);
    expect(dnsEncode(`${long}.eth`).slice(0, 4)).toBe('0x42'); // 66-byte label
    expect(dnsEncode('a'.repeat(255)).slice(0, 4)).toBe('0xff');
  });

  it('rejects empty labels', () => {
    expect(() => dnsEncode('a..eth')).toThrow(InvalidDnsEncodingError);
  });

  it.each([
    ['0x', 'missing 0 terminator'],
    ['0x0365746'.concat('8'), 'missing 0 terminator'],
    ['0x056574680', 'not an even-length'],
    ['0x036574', 'overruns'],
    ['0x036574680000', 'trailing bytes'],
    ['0x01ff00', 'not valid UTF-8'],
    ['0x03612e6200', 'contains a dot'],
    ['0xzz', 'not an even-length'],
  ])('rejects %s (%s)', (hex, reason) => {
    expect(() => dnsDecode(hex as `0x${string}`)).toThrow(reason);
    expect(() => dnsDecode(hex as `0x${string}`)).toThrow(InvalidDnsEncodingError);
  });
});
