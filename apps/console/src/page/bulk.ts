/**
 * Flow 4, in bulk: import a CSV or NDJSON file of subnames (batches of up to 1,000; all or nothing, or row by row as
 * the person chose) with each bad row's error shown by its line, and export every subname as an NDJSON download.
 */
import { type OffchainClient, ServiceError } from '@nrp/client/offchain';
import { type ImportRow, parseImport } from './records';
import { busy, download, field, h, InputError, showStatus, table } from './ui';
import type { WorkspaceSection } from './workspace';

/** The service's BULK_MAX_ITEMS (not imported: that module brings the zod schemas into the page). */
const BULK_MAX_ITEMS = 1000;

interface RowResult {
  row: ImportRow;
  outcome: string;
  failed: boolean;
}

/** The per-item errors of an atomic batch's 400 (`body.items.<i>.<field>`), by index in the batch. */
function errorsByItem(err: ServiceError): Map<number, string[]> {
  const byItem = new Map<number, string[]>();
  for (const e of err.errors) {
    const match = /^body\.items\.(\d+)\.?(.*)$/.exec(e.path);
    if (!match) continue;
    const index = Number(match[1]);
    byItem.set(index, [...(byItem.get(index) ?? []), `${match[2] || 'item'}: ${e.message}`]);
  }
  return byItem;
}

export function bulkPanel(
  offchain: OffchainClient,
  workspace: WorkspaceSection,
  reload: () => Promise<void>,
): HTMLElement {
  const file = h('input', { id: 'import-file', name: 'file', type: 'file', accept: '.csv,.ndjson,.jsonl' });
  file.required = true;
  const atomic = h('input', { id: 'import-atomic', name: 'atomic', type: 'checkbox', checked: true });
  const importButton = h('button', { type: 'submit', id: 'import' }, 'Import');
  const exportButton = h('button', { type: 'button', id: 'export', class: 'secondary' }, 'Export (NDJSON)');
  const progress = h('div', { id: 'import-progress', 'aria-live': 'polite' });
  const results = h('div', { id: 'import-results', class: 'scroll' });
  const form = h(
    'form',
    { id: 'import-form' },
    field('CSV or NDJSON file', file),
    h('label', { class: 'check' }, atomic, h('span', {}, 'All or nothing: one bad row writes no row')),
    h('div', { class: 'actions' }, importButton, exportButton),
  );
  const element = h(
    'div',
    { id: 'bulk', class: 'panel' },
    h('h3', {}, 'Import and export'),
    h(
      'p',
      { class: 'hint' },
      'CSV columns: label, owner, contenthash, text.<key>, addr.<chain> (e.g. text.url, addr.eth, addr.base). ' +
        'NDJSON: one subname body a line.',
    ),
    form,
    progress,
    results,
  );

  function show(rowResults: RowResult[]): void {
    const failed = rowResults.filter((r) => r.failed);
    results.replaceChildren(
      table(
        'import-table',
        ['Line', 'Label', 'Result'],
        rowResults.map(({ row, outcome, failed: bad }) =>
          h(
            'tr',
            { class: bad ? 'failed' : '', 'data-line': String(row.line) },
            h('td', {}, String(row.line)),
            h('td', {}, row.label),
            h('td', {}, outcome),
          ),
        ),
      ),
    );
    if (failed.length)
      results.prepend(h('p', { role: 'alert', class: 'problem' }, `${failed.length} row(s) failed.`));
  }

  async function runImport(): Promise<void> {
    const chosen = file.files?.[0];
    const open = workspace.current();
    if (!chosen || !open) throw new InputError('Choose a file first.');
    showStatus(progress, `Reading ${chosen.name}…`, 'busy');
    const rows = parseImport(chosen.name, await chosen.text(), open.parentName);
    const bad = rows.filter((r) => r.error);
    const outcomes: RowResult[] = bad.map((row) => ({
      row,
      outcome: `Not sent: ${row.error}`,
      failed: true,
    }));
    if (atomic.checked && bad.length) {
      showStatus(progress, `Nothing imported: ${bad.length} row(s) cannot be read.`, 'warn');
      show(outcomes);
      return;
    }
    const good = rows.flatMap((row) => (row.item ? [{ row, item: row.item }] : []));
    const batches = Math.ceil(good.length / BULK_MAX_ITEMS);
    let written = 0;
    for (let b = 0; b < batches; b++) {
      const batch = good.slice(b * BULK_MAX_ITEMS, (b + 1) * BULK_MAX_ITEMS);
      showStatus(progress, `Importing batch ${b + 1} of ${batches} (${batch.length} rows)…`, 'busy');
      try {
        const result = await offchain.bulkImportSubnames(
          batch.map((b) => b.item),
          open.apiKey,
          { atomic: atomic.checked },
        );
        for (const item of result.results) {
          const row = batch[item.index]?.row;
          if (!row) continue;
          const ok = item.status < 300;
          if (ok) written++;
          const fields = item.error?.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
          outcomes.push({
            row,
            failed: !ok,
            outcome: ok
              ? item.status === 201
                ? `Created ${item.fullName ?? ''}`
                : `Updated ${item.fullName ?? ''}`
              : `${item.error?.code ?? item.status}: ${fields || item.error?.detail || ''}`,
          });
        }
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const byItem = errorsByItem(err);
        // A refused batch: the rows the problem names failed; the others were only not written.
        const failedBatch = batch.map(({ row }, index) => ({
          row,
          failed: byItem.has(index) || byItem.size === 0,
          outcome: byItem.has(index)
            ? `${err.code}: ${byItem.get(index)?.join('; ') ?? ''}`
            : `Not written: the batch was refused (${err.code}: ${err.detail})`,
        }));
        outcomes.push(...failedBatch);
        if (atomic.checked) break;
      }
    }
    outcomes.sort((a, b) => a.row.line - b.row.line);
    showStatus(
      progress,
      `${written} of ${rows.length} row(s) written${atomic.checked && written === 0 && rows.length ? ' (all or nothing)' : ''}.`,
      outcomes.some((o) => o.failed) ? 'warn' : 'ok',
    );
    show(outcomes);
    if (written) await reload();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    results.replaceChildren();
    void busy(importButton, 'Importing…', progress, runImport);
  });
  exportButton.addEventListener('click', () =>
    busy(exportButton, 'Exporting…', progress, async () => {
      const open = workspace.current();
      if (!open) return;
      const lines: string[] = [];
      for await (const record of offchain.exportSubnames(open.parentName, open.apiKey)) {
        lines.push(JSON.stringify(record));
        if (lines.length % 100 === 0) showStatus(progress, `Exported ${lines.length} subnames…`, 'busy');
      }
      download(
        `${open.parentName}-subnames.ndjson`,
        lines.map((l) => `${l}\n`).join(''),
        'application/x-ndjson',
      );
      showStatus(progress, `Exported ${lines.length} subname(s) of ${open.parentName}.`);
    }),
  );
  workspace.subscribe(() => {
    progress.replaceChildren();
    results.replaceChildren();
  });
  return element;
}
