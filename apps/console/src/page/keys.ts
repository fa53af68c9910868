/** Flow 3: API keys of the names the signed-in address controls: create (the key shown once, copy), list, revoke. */
import type { ApiKey, OffchainClient } from '@nrp/client/offchain';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, field, h, showError, showStatus } from './ui';

export function keysSection(
  config: ConsoleConfig,
  offchain: OffchainClient,
  session: Session,
  onParents: (parents: string[]) => void,
): HTMLElement {
  const parent = h('input', {
    id: 'key-parent',
    name: 'parentName',
    placeholder: 'example.eth',
    required: true,
  });
  const note = h('input', { id: 'key-note', name: 'note', maxlength: '200' });
  const descendants = h('input', { id: 'key-descendants', name: 'includeDescendants', type: 'checkbox' });
  const create = h('button', { type: 'submit', id: 'create-key' }, 'Create key');
  const form = h(
    'form',
    { id: 'create-key-form' },
    field('Parent name', parent),
    field('Note (optional)', note),
    h('label', { class: 'check' }, descendants, h('span', {}, 'Also names below its subnames')),
    create,
  );
  const created = h('div', { id: 'created-key' });
  const errors = h('div', {});
  const table = h('table', { id: 'keys-table' });
  const tableState = h('div', { id: 'keys-state' });
  const element = h(
    'section',
    { id: 'keys', 'aria-labelledby': 'keys-heading', hidden: true },
    h('h2', { id: 'keys-heading' }, 'API keys'),
    form,
    errors,
    created,
    tableState,
    table,
  );

  const token = () => session.current.token ?? '';

  function showCreated(key: string, parentName: string): void {
    const copy = h('button', { type: 'button', id: 'copy-key' }, 'Copy');
    const copied = h('span', { role: 'status' });
    copy.addEventListener('click', () => {
      void navigator.clipboard.writeText(key).then(
        () => (copied.textContent = 'Copied.'),
        () => (copied.textContent = 'Copying failed: select the key and copy it by hand.'),
      );
    });
    created.replaceChildren(
      h(
        'div',
        { class: 'once', role: 'alert' },
        h('p', {}, `New key for ${parentName}. It is shown only now: copy it and keep it secret.`),
        h('code', { id: 'new-key' }, key),
        copy,
        copied,
      ),
    );
  }

  function row(key: ApiKey): HTMLTableRowElement {
    const revoke = h(
      'button',
      { type: 'button', class: 'danger', 'aria-label': `Revoke key ${key.id}` },
      'Revoke',
    );
    const cell = h('td', {}, revoke);
    revoke.addEventListener('click', () =>
      busy(revoke, 'Revoking…', cell, async () => {
        await offchain.revokeKey(key.id, token());
        await load();
      }),
    );
    return h(
      'tr',
      { 'data-key-id': key.id },
      h('td', {}, key.parentName),
      h('td', {}, key.includeDescendants ? 'all below' : 'direct subnames'),
      h('td', {}, key.note ?? ''),
      h('td', {}, key.createdAt.slice(0, 10)),
      h('td', {}, key.lastUsedAt?.slice(0, 10) ?? 'never'),
      cell,
    );
  }

  async function load(): Promise<void> {
    showStatus(tableState, 'Loading keys…', 'busy');
    try {
      const keys = await offchain.listKeys(token());
      table.replaceChildren(
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Parent', 'Scope', 'Note', 'Created', 'Last used', ''].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h('tbody', {}, ...keys.map(row)),
      );
      showStatus(tableState, keys.length ? `${keys.length} active key(s).` : 'No keys yet.', 'idle');
      onParents([...new Set(keys.map((k) => k.parentName))]);
    } catch (err) {
      showError(tableState, err);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(create, 'Creating…', errors, async () => {
      const result = await offchain.createKey(
        {
          parentName: parent.value.trim().toLowerCase(),
          network: config.network,
          note: note.value.trim() || undefined,
          includeDescendants: descendants.checked,
        },
        token(),
      );
      showCreated(result.key, result.parentName);
      form.reset();
      await load();
    });
  });

  let signedIn: string | undefined;
  session.subscribe((state) => {
    element.hidden = !state.token;
    if (state.token === signedIn) return;
    signedIn = state.token;
    created.replaceChildren();
    table.replaceChildren();
    if (state.token) void load();
  });
  return element;
}
