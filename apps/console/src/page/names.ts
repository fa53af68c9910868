/**
 * Flow 2: the names the person controls and their setup state (parentSetup); the setup transactions sent one by
 * one with progress. Names are the parents of the person's keys and any they check here (kept in localStorage).
 */
import type { OffchainClient, ParentSetup } from '@nrp/client/offchain';
import type { Address, Hex } from 'viem';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, field, h, showError, showStatus } from './ui';
import type { Wallet } from './wallet';

const storageKey = (account: string) => `nrp-console:names:${account.toLowerCase()}`;

export interface NamesSection {
  element: HTMLElement;
  /** Adds names (from the key list) and shows their setup. */
  add(names: string[]): void;
}

export function namesSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  offchain: OffchainClient,
  session: Session,
): NamesSection {
  const list = h('ul', { id: 'names-list', class: 'cards' });
  const errors = h('div', {});
  const input = h('input', { id: 'name-input', name: 'name', placeholder: 'example.eth', required: true });
  const check = h('button', { type: 'submit' }, 'Check');
  const form = h('form', { class: 'inline' }, field('Name', input), check);
  const element = h(
    'section',
    { id: 'names', 'aria-labelledby': 'names-heading', hidden: true },
    h('h2', { id: 'names-heading' }, 'Your names'),
    h('p', { class: 'hint' }, 'A name you control on chain, and whether its subnames already resolve here.'),
    form,
    errors,
    list,
  );
  const shown = new Map<string, HTMLLIElement>();

  const remember = (names: string[]) => {
    const { account } = session.current;
    if (!account) return;
    localStorage.setItem(storageKey(account), JSON.stringify(names));
  };
  const remembered = (account: string): string[] => {
    try {
      const value: unknown = JSON.parse(localStorage.getItem(storageKey(account)) ?? '[]');
      return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
    } catch {
      return [];
    }
  };

  function render(item: HTMLLIElement, name: string, setup: ParentSetup): void {
    const account = session.current.account?.toLowerCase();
    const controls = setup.controller?.toLowerCase() === account;
    const state = setup.ready ? 'ready' : 'needs-setup';
    item.dataset.state = state;
    const progress = h('div', { class: 'progress' });
    const itemErrors = h('div', {});
    const children: (Node | string)[] = [
      h('h3', {}, name),
      h(
        'dl',
        {},
        h('dt', {}, 'Controller'),
        h('dd', {}, setup.controller ?? 'nobody'),
        h('dt', {}, 'Resolver'),
        h(
          'dd',
          {},
          setup.resolver ? `${setup.resolver}${setup.resolverIsOurs ? ' (this platform)' : ''}` : 'none',
        ),
        h('dt', {}, 'Setup'),
        h(
          'dd',
          { class: `badge ${state}` },
          setup.ready ? 'Ready' : `${setup.steps.length} transaction(s) to send`,
        ),
      ),
    ];
    if (!controls)
      children.push(h('p', { class: 'warn' }, 'The connected account does not control this name.'));
    if (!setup.ready && controls && wallet) {
      const send = h('button', { type: 'button', class: 'send-setup' }, 'Send setup transactions');
      send.addEventListener('click', () =>
        busy(send, 'Sending…', itemErrors, async () => {
          const from = session.current.account as Address;
          for (const [index, step] of setup.steps.entries()) {
            showStatus(
              progress,
              `Transaction ${index + 1} of ${setup.steps.length}: ${step.description} — confirm in the wallet…`,
              'busy',
            );
            await wallet.send(from, {
              to: step.to as Address,
              data: step.data as Hex,
              value: BigInt(step.value),
            });
          }
          showStatus(progress, 'Setup sent; checking…', 'busy');
          await refresh(name);
        }).then((done) => {
          if (!done) progress.replaceChildren();
        }),
      );
      children.push(send);
    }
    children.push(progress, itemErrors);
    item.replaceChildren(...children);
  }

  async function refresh(name: string): Promise<void> {
    let item = shown.get(name);
    if (!item) {
      item = h('li', { class: 'card name', 'data-name': name });
      shown.set(name, item);
      list.append(item);
    }
    showStatus(item, `Reading ${name}…`, 'busy');
    const target = item;
    try {
      render(target, name, await offchain.parentSetup(name, config.network));
    } catch (err) {
      target.replaceChildren(h('h3', {}, name));
      const region = h('div', {});
      showError(region, err);
      target.append(region);
    }
  }

  const add = (names: string[]) => {
    for (const name of names) if (!shown.has(name)) void refresh(name);
    remember([...shown.keys()]);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim().toLowerCase();
    if (!name) return;
    void busy(check, 'Checking…', errors, async () => {
      await refresh(name);
      remember([...shown.keys()]);
      input.value = '';
    });
  });

  let account: string | undefined;
  session.subscribe((state) => {
    element.hidden = !state.token;
    if (state.account === account) return;
    account = state.account;
    shown.clear();
    list.replaceChildren();
    if (account) add(remembered(account));
  });
  return { element, add };
}
