/**
 * Records as a person writes them: texts as `key=value` lines, addresses as `chain=address` lines with the chain
 * by name (`eth`, `base`, `btc`, … or a coin type number), and CSV/NDJSON import rows. Mistakes are thrown as
 * InputError naming the line, before anything is sent.
 */
import { chainByCoinType, chainByName } from '@nrp/ens';
import { type CreateSubnameInput, type OffchainSubname, toCreateSubnameInput } from '@nrp/client/offchain';
import { InputError } from './ui';

/** `key=value` lines (blank lines skipped); `what` names the field in errors. */
export function parsePairs(text: string, what: string): Array<{ key: string; value: string }> {
  const pairs: Array<{ key: string; value: string }> = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    const at = line.indexOf('=');
    if (at <= 0) throw new InputError(`${what}, line ${index + 1}: write it as key=value`);
    pairs.push({ key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() });
  });
  return pairs;
}

/** A chain name or alias, or a decimal coin type. */
export function coinOf(chain: string): number {
  const named = chainByName(chain);
  if (named) return named.coinType;
  if (/^\d+$/.test(chain.trim())) return Number(chain.trim());
  throw new InputError(`unknown chain "${chain}" (try eth, base, op, arb, polygon, btc, sol or a coin type)`);
}

export function chainNameOf(coin: number): string {
  return chainByCoinType(coin)?.name ?? String(coin);
}

export function parseAddresses(text: string): Array<{ coin: number; value: string }> {
  return parsePairs(text, 'Addresses').map(({ key, value }, index) => {
    try {
      return { coin: coinOf(key), value };
    } catch (err) {
      throw new InputError(`Addresses, entry ${index + 1}: ${(err as Error).message}`);
    }
  });
}

export function formatTexts(record: OffchainSubname): string {
  return Object.entries(record.texts)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

export function formatAddresses(record: OffchainSubname): string {
  return Object.entries(record.addresses)
    .map(([coin, value]) => `${chainNameOf(Number(coin))}=${value}`)
    .join('\n');
}

/** A CSV row and the line of the file it starts on. */
export interface CsvRow {
  line: number;
  cells: string[];
}

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. Blank rows are left out. */
export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    row.push(cell);
    if (row.some((v) => v !== '')) rows.push({ line: rowLine, cells: row });
    row = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += c;
  }
  endRow();
  return rows;
}

/** One import row: its line in the file, and the body it becomes or why it cannot. */
export interface ImportRow {
  line: number;
  label: string;
  item?: CreateSubnameInput;
  error?: string;
}

/**
 * CSV with a header: `label`, `owner`, `contenthash`, `text.<key>` and `addr.<chain>` columns (empty cells are
 * left out). NDJSON: one create-or-update body (or exported record) per line; `parentName` defaults to the open parent.
 */
export function parseImport(fileName: string, text: string, parentName: string): ImportRow[] {
  if (/\.(ndjson|jsonl)$/i.test(fileName) || text.trimStart().startsWith('{')) {
    return text.split('\n').flatMap((line, index): ImportRow[] => {
      if (!line.trim()) return [];
      try {
        const value = JSON.parse(line) as Partial<CreateSubnameInput> | OffchainSubname;
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          throw new InputError('not a JSON object');
        // A line of an export is a whole record: it is imported as the body that writes it again.
        const item =
          'fullName' in value
            ? toCreateSubnameInput(value)
            : { ...value, parentName: value.parentName ?? parentName, label: value.label ?? '' };
        return [{ line: index + 1, label: String(value.label), item }];
      } catch (err) {
        const error =
          err instanceof InputError ? err.message : `not a JSON object: ${(err as Error).message}`;
        return [{ line: index + 1, label: '', error }];
      }
    });
  }
  const [header, ...rows] = parseCsv(text);
  const columns = (header?.cells ?? []).map((h) => h.trim());
  if (!columns.includes('label'))
    return [{ line: header?.line ?? 1, label: '', error: 'the header has no label column' }];
  return rows.map(({ line, cells }) => {
    const item: CreateSubnameInput = { parentName, label: '', texts: [], addresses: [] };
    try {
      columns.forEach((column, c) => {
        const value = (cells[c] ?? '').trim();
        if (!value) return;
        if (column === 'label') item.label = value;
        else if (column === 'owner') item.owner = value;
        else if (column === 'contenthash') item.contenthash = value;
        else if (column.startsWith('text.')) item.texts?.push({ key: column.slice(5), value });
        else if (column.startsWith('addr.')) item.addresses?.push({ coin: coinOf(column.slice(5)), value });
        else throw new InputError(`unknown column "${column}"`);
      });
      if (!item.label) throw new InputError('no label');
      return { line, label: item.label, item };
    } catch (err) {
      return { line, label: item.label, error: (err as Error).message };
    }
  });
}
