/**
 * The parent name the subname, image and webhook sections work on, with the API key they send (`x-auth-token`):
 * one pasted by the person, or one created for this page through the session. The key lives in memory only.
 */
import type { OffchainClient } from '@nrp/client/offchain';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, field, h, showStatus } from './ui';

export interface Workspace {
  parentName: string;
  apiKey: string;
}

type Listener = (workspace: Workspace | undefined) => void;

export interface WorkspaceSection {
  element: HTMLElement;
  current(): Workspace | undefined;
  subscribe(listener: Listener): void;
  /** Opens `parentName` with a key created for the page (as _Open_ with no key does); true once it is open. */
  open(parentName: string): Promise<boolean>;
}

export function workspaceSection(
  config: ConsoleConfig,
  offchain: OffchainClient,
  session: Session,
): WorkspaceSection {
  const parent = h('input', { id: 'workspace-parent', name: 'parentName', placeholder: 'example.eth' });
  parent.required = true;
  const key = h('input', { id: 'workspace-key', name: 'apiKey', type: 'password', autocomplete: 'off' });
  const open = h('button', { type: 'submit', id: 'open-workspace' }, 'Open');
  const form = h(
    'form',
    { class: 'inline-3' },
    field('Open parent', parent),
    field('API key (empty: create one for this page)', key),
    open,
  );
  const status = h('div', { id: 'workspace-status', 'aria-live': 'polite' });
  const errors = h('div', {});
  const element = h(
    'section',
    { id: 'workspace', 'aria-labelledby': 'workspace-heading', hidden: true },
    h('h2', { id: 'workspace-heading' }, 'Work on a parent'),
    h('p', { class: 'hint' }, 'Subnames, images and webhooks below act on this name with its API key.'),
    form,
    status,
    errors,
  );
  const listeners: Listener[] = [];
  let workspace: Workspace | undefined;
  const set = (next: Workspace | undefined) => {
    workspace = next;
    for (const listener of listeners) listener(next);
  };

  async function openParent(parentName: string, pastedKey: string): Promise<void> {
    let apiKey = pastedKey;
    if (!apiKey) {
      showStatus(status, `Creating an API key for ${parentName}…`, 'busy');
      const created = await offchain
        .createKey({ parentName, network: config.network, note: 'console page' }, session.current.token ?? '')
        .catch((err: unknown) => {
          status.replaceChildren();
          throw err;
        });
      apiKey = created.key;
    }
    key.value = '';
    showStatus(
      status,
      `Working on ${parentName} with the key ending …${apiKey.slice(-4)} (held by this page until it is closed).`,
    );
    set({ parentName, apiKey });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(open, 'Opening…', errors, () =>
      openParent(parent.value.trim().toLowerCase(), key.value.trim()),
    );
  });

  session.subscribe((state) => {
    element.hidden = !state.token;
    if (!state.token && workspace) {
      status.replaceChildren();
      set(undefined);
    }
  });
  return {
    element,
    current: () => workspace,
    subscribe: (listener) => listeners.push(listener),
    open: async (parentName) => {
      element.scrollIntoView();
      if (workspace?.parentName === parentName) return true;
      parent.value = parentName;
      return busy(open, 'Opening…', errors, () => openParent(parentName, ''));
    },
  };
}
