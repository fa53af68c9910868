import { isValidScope, parseScope, scopeAllows } from '../src';

describe('scopeAllows(granted, requested)', () => {
  it.each([
    ['avatar', 'avatar', true],
    ['header', 'header', true],
    ['avatar+header', 'avatar', true],
    ['avatar+header', 'header', true],
    ['avatar+header', 'avatar+header', true],
    ['header+avatar', 'avatar+header', true],
    ['listing', 'listing', true],
    ['avatar', 'header', false],
    ['header', 'avatar', false],
    ['avatar', 'avatar+header', false],
    ['listing', 'avatar', false],
    ['avatar+header', 'listing', false],
    ['avatar', 'Avatar', false],
    ['avatar', 'avatars', false],
    ['avatar', '', false],
    ['', '', false],
    ['avatar+', 'avatar', false],
    ['avatar+header', 'avatar+', false],
  ])('%j allows %j: %s', (granted, requested, expected) => {
    expect(scopeAllows(granted, requested)).toBe(expected);
  });
});

describe('parseScope', () => {
  it('splits on + and refuses empty or odd parts', () => {
    expect(parseScope('avatar+header')).toEqual(['avatar', 'header']);
    expect(parseScope('listing')).toEqual(['listing']);
    for (const bad of ['', '+', 'a++b', 'Avatar', 'a b', '1abc', 'x'.repeat(33)]) {
      expect(parseScope(bad)).toBeUndefined();
      expect(isValidScope(bad)).toBe(false);
    }
  });
});
