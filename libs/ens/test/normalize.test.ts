import {
  beautify,
  EnsError,
  InvalidNameError,
  isNormalized,
  isSingleLabel,
  normalizeName,
  parentOf,
  splitLabels,
} from '../src';

describe('normalizeName', () => {
  it.each([
    ['Nick.ETH', 'nick.eth'],
    ['VITALIK.eth', 'vitalik.eth'],
    ['', ''],
    ['ｆｏｏ.eth', 'foo.eth'],
    ['💩.eth', '💩.eth'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it.each(['a..eth', 'foo bar.eth', 'a_b\u200d.eth', 'xn--ls8h.eth', '.eth'])(
    'rejects %j with InvalidNameError',
    (input) => {
      let caught: unknown;
      try {
        normalizeName(input);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InvalidNameError);
      expect(caught).toBeInstanceOf(EnsError);
      const err = caught as InvalidNameError;
      expect(err.code).toBe('INVALID_NAME');
      expect(err.input).toBe(input);
      expect(err.reason.length).toBeGreaterThan(0);
      expect(err.message).toContain(err.reason);
      expect(err.message).toContain(JSON.stringify(input));
    },
  );

  it('reports the disallowed character reason', () => {
    expect(() => normalizeName('foo bar.eth')).toThrow(/disallowed character/);
  });
});

describe('isNormalized / beautify', () => {
  it('distinguishes normalised names', () => {
    expect(isNormalized('nick.eth')).toBe(true);
    expect(isNormalized('Nick.eth')).toBe(false);
    expect(isNormalized('a..eth')).toBe(false);
  });

  it('beautifies, keeping the emoji presentation selector', () => {
    expect(beautify('1⃣.eth')).toBe('1️⃣.eth');
    expect(() => beautify('a..eth')).toThrow(InvalidNameError);
  });
});

describe('labels', () => {
  it('splits names into labels', () => {
    expect(splitLabels('a.b.eth')).toEqual(['a', 'b', 'eth']);
    expect(splitLabels('eth')).toEqual(['eth']);
    expect(splitLabels('')).toEqual([]);
  });

  it('checks single labels', () => {
    expect(isSingleLabel('alice')).toBe(true);
    expect(isSingleLabel('')).toBe(false);
    expect(isSingleLabel('a.b')).toBe(false);
  });

  it('finds the parent', () => {
    expect(parentOf('a.b.eth')).toBe('b.eth');
    expect(parentOf('b.eth')).toBe('eth');
    expect(parentOf('eth')).toBe('');
    expect(parentOf('')).toBeUndefined();
  });
});
