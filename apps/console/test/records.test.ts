import { parseImport } from '../src/page/records';

describe('parseImport (CSV)', () => {
  it('names each row by the line of the file it starts on, past blank lines and quoted line breaks', () => {
    const csv = ['label,text.description', 'alice,"two', 'lines"', '', 'bob,', ',no label'].join('\n');
    const rows = parseImport('import.csv', csv, 'offchain.eth');
    expect(rows.map(({ line, label, error }) => ({ line, label, error }))).toEqual([
      { line: 2, label: 'alice', error: undefined },
      { line: 5, label: 'bob', error: undefined },
      { line: 6, label: '', error: 'no label' },
    ]);
    expect(rows[0]?.item?.texts).toEqual([{ key: 'description', value: 'two\nlines' }]);
  });

  it('says an NDJSON line that is not an object once', () => {
    const [row] = parseImport('import.ndjson', '[1]', 'offchain.eth');
    expect(row?.error).toBe('not a JSON object');
  });
});
