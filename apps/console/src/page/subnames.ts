/**
 * Flow 4: the subnames of the open parent: list and search by label (pages through `nextCursor`), create and edit
 * records (texts, addresses by chain name, contenthash, owner), delete (asked twice). The bulk import and export
 * are in bulk.ts.
 */
import type { OffchainClient, OffchainSubname } from '@nrp/client/offchain';
import { bulkPanel } from './bulk';
import { formatAddresses, formatTexts, parseAddresses, parsePairs } from './records';
import { busy, field, h, showError, showStatus, table } from './ui';
import type { Wallet } from './wallet';
import type { WorkspaceSection } from './workspace';

const PAGE_SIZE = 25;

export function subnamesSection(
  offchain: OffchainClient,
  wallet: Wallet | undefined,
  workspace: WorkspaceSection,
): HTMLElement {
  const search = h('input', { id: 'subname-search', name: 'labelSearch', type: 'search' });
  const searchButton = h('button', { type: 'submit' }, 'Search');
  const searchForm = h(
    'form',
    { class: 'inline', role: 'search' },
    field('Label contains', search),
    searchButton,
  );
  const listState = h('div', { id: 'subnames-state', 'aria-live': 'polite' });
  const list = h('div', { class: 'scroll' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'More');

  const label = h('input', { id: 'subname-label', name: 'label', required: true });
  const owner = h('input', { id: 'subname-owner', name: 'owner', placeholder: '0x… (optional)' });
  const texts = h('textarea', {
    id: 'subname-texts',
    name: 'texts',
    rows: '3',
    placeholder: 'url=https://…',
  });
  const addresses = h('textarea', {
    id: 'subname-addresses',
    name: 'addresses',
    rows: '2',
    placeholder: 'eth=0x…\nbase=0x…\nbtc=bc1…',
  });
  const contenthash = h('input', { id: 'subname-contenthash', name: 'contenthash', placeholder: 'ipfs://…' });
  const save = h('button', { type: 'submit', id: 'save-subname' }, 'Save subname');
  const clear = h('button', { type: 'button', class: 'secondary' }, 'New');
  const editorState = h('div', { id: 'subname-editor-state' });
  const editorTitle = h('h3', { id: 'subname-editor-heading' }, 'New subname');
  const editor = h(
    'form',
    { id: 'subname-editor', 'aria-labelledby': 'subname-editor-heading' },
    editorTitle,
    field('Label', label),
    field('Owner', owner),
    field('Text records (key=value, one a line)', texts),
    field('Addresses (chain=address, one a line)', addresses),
    field('Contenthash', contenthash),
    h('div', { class: 'actions' }, save, clear),
    editorState,
  );

  const element = h(
    'section',
    { id: 'subnames', 'aria-labelledby': 'subnames-heading', hidden: true },
    h('h2', { id: 'subnames-heading' }, 'Subnames'),
    searchForm,
    listState,
    list,
    more,
    editor,
  );

  let cursor: string | undefined;
  let rows: HTMLTableRowElement[] = [];
  const parent = () => workspace.current()?.parentName ?? '';
  const key = () => workspace.current()?.apiKey ?? '';

  function edit(record: OffchainSubname): void {
    editorTitle.textContent = `Edit ${record.fullName}`;
    label.value = record.label;
    label.readOnly = true;
    owner.value = record.owner ?? '';
    texts.value = formatTexts(record);
    addresses.value = formatAddresses(record);
    contenthash.value = record.contenthash ?? '';
    editorState.replaceChildren();
    label.focus();
  }

  function reset(): void {
    editor.reset();
    label.readOnly = false;
    editorTitle.textContent = 'New subname';
  }

  function row(record: OffchainSubname): HTMLTableRowElement {
    const editButton = h('button', { type: 'button', 'aria-label': `Edit ${record.fullName}` }, 'Edit');
    editButton.addEventListener('click', () => edit(record));
    const remove = h(
      'button',
      { type: 'button', class: 'danger', 'aria-label': `Delete ${record.fullName}` },
      'Delete',
    );
    const cell = h('td', { class: 'actions' }, editButton, remove);
    const problem = h('div', {});
    let armed = false;
    remove.addEventListener('click', () => {
      if (!armed) {
        armed = true;
        remove.textContent = 'Confirm delete';
        remove.setAttribute('aria-label', `Confirm delete of ${record.fullName}`);
        return;
      }
      void busy(remove, 'Deleting…', problem, async () => {
        await offchain.deleteSubname(record.fullName, key());
        tr.remove();
        showStatus(listState, `Deleted ${record.fullName}.`);
      });
    });
    cell.append(problem);
    const texts = Object.keys(record.texts).length;
    const addressCount = Object.keys(record.addresses).length;
    const tr = h(
      'tr',
      { 'data-subname': record.fullName },
      h('td', {}, record.fullName),
      h('td', { class: 'mono' }, record.owner ?? '—'),
      h(
        'td',
        {},
        `${texts} text(s), ${addressCount} address(es)${record.contenthash ? ', contenthash' : ''}`,
      ),
      h('td', {}, record.updatedAt.slice(0, 16).replace('T', ' ')),
      cell,
    );
    return tr;
  }

  function render(): void {
    list.replaceChildren(table('subnames-table', ['Name', 'Owner', 'Records', 'Updated', ''], rows));
  }

  async function load(append: boolean): Promise<void> {
    if (!append) cursor = undefined;
    showStatus(listState, 'Loading subnames…', 'busy');
    try {
      const result = await offchain.searchSubnames({
        parentName: parent(),
        labelSearch: search.value.trim() || undefined,
        size: PAGE_SIZE,
        cursor,
      });
      rows = append ? [...rows, ...result.items.map(row)] : result.items.map(row);
      cursor = result.nextCursor;
      more.hidden = !cursor;
      render();
      showStatus(listState, `${result.totalItems} subname(s) of ${parent()}; ${rows.length} shown.`, 'idle');
    } catch (err) {
      showError(listState, err);
    }
  }

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(searchButton, 'Searching…', listState, () => load(false));
  });
  more.addEventListener('click', () => void busy(more, 'Loading…', listState, () => load(true)));
  clear.addEventListener('click', reset);
  editor.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(save, 'Saving…', editorState, async () => {
      const written = await offchain.createOrUpdateSubname(
        {
          parentName: parent(),
          label: label.value.trim(),
          owner: owner.value.trim() || null,
          texts: parsePairs(texts.value, 'Text records'),
          addresses: parseAddresses(addresses.value),
          contenthash: contenthash.value.trim() || null,
        },
        key(),
      );
      reset();
      showStatus(editorState, `Saved ${written.fullName}.`);
      await load(false);
      if (!wallet) return;
      // Read back the way every ENS client does: the Universal Resolver on chain, then CCIP-Read.
      const resolved = await wallet.ensAddress(written.fullName).then(
        (address) => `resolves to ${address ?? 'no ETH address'}`,
        (err: unknown) =>
          `does not resolve yet (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      );
      showStatus(editorState, `Saved ${written.fullName}. On ${wallet.chain.name} it ${resolved}.`);
    });
  });

  const bulk = bulkPanel(offchain, workspace, () => load(false));
  element.append(bulk);
  workspace.subscribe((open) => {
    element.hidden = !open;
    reset();
    editorState.replaceChildren();
    rows = [];
    list.replaceChildren();
    if (open) void load(false);
  });
  return element;
}
