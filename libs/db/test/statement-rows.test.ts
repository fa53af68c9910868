import { statementGroups } from '../src';

describe('statementGroups', () => {
  it('cuts rows so that no statement binds more than 32,767 parameters  (what the PGlite client counts), in order', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => i);
    const groups = statementGroups(rows, 7);
    expect(groups.map((g) => g.length)).toEqual([4681, 4681, 4681, 4681, 1276]);
    expect(groups.flat()).toEqual(rows);
    expect(statementGroups([], 5)).toEqual([]);
  });
});
