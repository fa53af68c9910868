/**
 * Flow 2: the names of the signed-in wallet, with no typing (owned-names.ts: its primary name, the names minted
 * here on the L1 and its L2, its offchain subnames, the parents of its API keys) and any the person checks here
 * (kept in localStorage). Each card says where the name was found, its setup state and what the page can do for it:
 * send the setup transactions one by one with progress, manage its subnames, list it for minting, upload an avatar.
 */
import type { OffchainClient, ParentSetup } from '@nrp/client/offchain';
import type { ResolverClient } from '@nrp/client/resolver';
import type { Address } from 'viem';
import type { ConsoleConfig } from '../config';
import { l2ResolverChoice, sendSteps, type SetupTransaction } from './l2-resolvers';
import {
  compareOwnedNames,
  describeSources,
  fromAddressNames,
  kindOf,
  mergeNames,
  type NameSource,
  type OwnedName,
} from './owned-names';
import type { Session } from './session';
import { busy, field, h, showError, showStatus } from './ui';
import type { Wallet } from './wallet';

const storageKey = (account: string) => `nrp-console:names:${account.toLowerCase()}`;
/** resolver-svc's pages of an address's names read at sign-in; more are left out and said so. */
const MAX_NAME_PAGES = 10;

/** What the other sections do for a name, offered on its card. */
export interface NameActions {
  /** Opens the name in "Work on a parent": its subnames, images and webhooks. */
  manageSubnames(parentName: string): Promise<boolean>;
  /** Loads the name's mint listing into "Mint listing". */
  listForMinting(parentName: string): void;
  /** Opens the offchain subname's parent and readies the avatar upload for it. */
  uploadAvatar(subname: string, parentName: string): Promise<void>;
}

export interface NamesSection {
  element: HTMLElement;
  /** Adds names found by another section (`key`: the parents of the person's API keys). */
  add(names: string[], source: NameSource): void;
}

export function namesSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  offchain: OffchainClient,
  resolver: ResolverClient,
  session: Session,
  actions: NameActions,
): NamesSection {
  const list = h('ul', { id: 'names-list', class: 'cards' });
  const discovery = h('div', { id: 'names-discovery', 'aria-live': 'polite' });
  const errors = h('div', {});
  const input = h('input', { id: 'name-input', name: 'name', placeholder: 'example.eth', required: true });
  const check = h('button', { type: 'submit' }, 'Check');
  const form = h('form', { class: 'inline' }, field('Name', input), check);
  const element = h(
    'section',
    { id: 'names', 'aria-labelledby': 'names-heading', hidden: true },
    h('h2', { id: 'names-heading' }, 'Your names'),
    h(
      'p',
      { class: 'hint' },
      'The names this platform knows for your wallet, where it found them, and whether they are set up here. ' +
        'Check another name you control on chain:',
    ),
    form,
    errors,
    discovery,
    list,
  );
  const known = new Map<string, OwnedName>();
  const cards = new Map<string, HTMLLIElement>();

  const account = () => session.current.account?.toLowerCase();
  const remember = () => {
    const current = account();
    if (!current) return;
    const checked = [...known.values()].filter((n) => n.sources.includes('checked')).map((n) => n.name);
    localStorage.setItem(storageKey(current), JSON.stringify(checked));
  };
  const remembered = (address: string): string[] => {
    try {
      const value: unknown = JSON.parse(localStorage.getItem(storageKey(address)) ?? '[]');
      return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
    } catch {
      return [];
    }
  };

  const button = (label: string, onClick: (button: HTMLButtonElement) => void, secondary = true) => {
    const b = h('button', { type: 'button', class: secondary ? 'secondary' : '' }, label);
    b.addEventListener('click', () => onClick(b));
    return b;
  };
  const facts = (...rows: Array<[string, string, string?]>) =>
    h(
      'dl',
      {},
      ...rows.flatMap(([term, value, badge]) => [
        h('dt', {}, term),
        h('dd', badge ? { class: `badge ${badge}` } : {}, value),
      ]),
    );
  /** A minted name's expiry; none on an unwrapped L1 name (it lasts as its parent does), never on an L2 one. */
  const expiryFact = (owned: OwnedName): Array<[string, string]> => {
    if (owned.expiry) return [['Expires', new Date(owned.expiry * 1000).toISOString().slice(0, 10)]];
    return owned.expiry === null && kindOf(owned) === 'l2' ? [['Expires', 'never']] : [];
  };

  /**
   * A name on the page's L1: its controller, resolver and setup, and (for its controller) what to do next. A parent
   * whose subnames live on an L2 lists the resolvers it may choose (l2-resolvers.ts) instead of setup transactions.
   */
  function renderOnchain(item: HTMLLIElement, owned: OwnedName, setup: ParentSetup): void {
    const controls = setup.controller?.toLowerCase() === account();
    item.dataset.state = setup.ready ? 'ready' : 'needs-setup';
    const progress = h('div', { class: 'progress' });
    const itemErrors = h('div', {});
    const buttons = h('div', { class: 'actions' });
    /** For its controller: sends the steps through the wallet, then reads the name again. */
    const send =
      controls && wallet
        ? (b: HTMLButtonElement, steps: () => Promise<readonly SetupTransaction[]>) =>
            void busy(b, 'Sending…', itemErrors, async () => {
              await sendSteps(wallet, session.current.account as Address, await steps(), progress);
              showStatus(progress, 'Setup sent; checking…', 'busy');
              await refresh(owned.name);
            }).then((done) => {
              if (!done) progress.replaceChildren();
            })
        : undefined;
    if (setup.steps.length && send) {
      const sendSetup = button('Send setup transactions', (b) => send(b, async () => setup.steps), false);
      sendSetup.classList.add('send-setup');
      buttons.append(sendSetup);
    }
    const choice = setup.l2
      ? [
          l2ResolverChoice(
            setup.l2,
            send &&
              ((option, b) =>
                // Read again at the click: the deployment's announced address follows the account's nonce now.
                send(b, async () => {
                  const now = await offchain.parentSetup(owned.name, config.network);
                  return now.l2?.options.find((o) => o.kind === option.kind)?.steps ?? [];
                })),
          ),
        ]
      : [];
    // An L2 parent's subnames are tokens on the L2, not offchain records this page manages.
    if (setup.ready && controls && !setup.l2) {
      buttons.append(button('Manage subnames', () => void actions.manageSubnames(owned.name)));
    }
    if (controls) buttons.append(button('List for minting', () => actions.listForMinting(owned.name)));
    item.replaceChildren(
      ...heading(owned),
      facts(
        ['Controller', setup.controller ?? 'nobody'],
        [
          'Resolver',
          setup.resolver ? `${setup.resolver}${setup.resolverIsOurs ? ' (this platform)' : ''}` : 'none',
        ],
        ...expiryFact(owned),
        ['Setup', setupState(setup), setup.ready ? 'ready' : 'needs-setup'],
      ),
      controls ? buttons : h('p', { class: 'warn' }, 'The connected account does not control this name.'),
      ...choice,
      progress,
      itemErrors,
    );
  }

  function setupState(setup: ParentSetup): string {
    if (setup.l2) {
      const chosen = setup.l2.options.find((option) => option.chosen);
      return chosen
        ? `Ready: its subnames on ${setup.l2.network} resolve through the ${chosen.contract}`
        : `Not resolving: set one of the resolvers below to resolve its subnames on ${setup.l2.network}`;
    }
    return setup.ready
      ? 'Ready: its subnames resolve through this platform'
      : `${setup.steps.length} transaction(s) to send to resolve its subnames here`;
  }

  /** An offchain subname: it resolves once its parent is set up; its avatar is set with the parent's key. */
  function renderOffchain(item: HTMLLIElement, owned: OwnedName, parent: ParentSetup): void {
    const parentName = parent.parentName;
    item.dataset.state = parent.ready ? 'ready' : 'needs-setup';
    const itemErrors = h('div', {});
    const controlsParent = parent.controller?.toLowerCase() === account();
    const upload = button(
      'Upload avatar',
      (b) => void busy(b, 'Opening…', itemErrors, () => actions.uploadAvatar(owned.name, parentName)),
    );
    item.replaceChildren(
      ...heading(owned),
      facts(
        ['Records', `offchain, on this platform, under ${parentName}`],
        [
          'Setup',
          parent.ready
            ? `Ready: it resolves (${parentName} is set up)`
            : `Not resolving yet: ${parentName} needs its setup`,
          parent.ready ? 'ready' : 'needs-setup',
        ],
      ),
      controlsParent
        ? h('div', { class: 'actions' }, upload)
        : h(
            'p',
            { class: 'hint' },
            `Its records and avatar are set with an API key of ${parentName}'s owner.`,
          ),
      itemErrors,
    );
  }

  /** A name minted on the L2: its records live in the parent's registry there, which this page does not write. */
  function renderL2(item: HTMLLIElement, owned: OwnedName): void {
    item.dataset.state = 'l2';
    item.replaceChildren(
      ...heading(owned),
      facts(['Network', owned.network ?? ''], ['Parent', owned.parentName ?? ''], ...expiryFact(owned), [
        'Setup',
        `Held on ${owned.network ?? 'the L2'}: resolves from ${config.network} through its parent`,
        'ready',
      ]),
      h('p', { class: 'hint' }, `Its records are set on ${owned.network ?? 'the L2'}, not on this page.`),
    );
  }

  function heading(owned: OwnedName): Node[] {
    return [h('h3', {}, owned.name), h('p', { class: 'sources' }, `Found as ${describeSources(owned)}`)];
  }

  function cardOf(name: string): HTMLLIElement {
    let item = cards.get(name);
    if (!item) {
      item = h('li', { class: 'card name', 'data-name': name });
      cards.set(name, item);
    }
    return item;
  }

  async function refresh(name: string): Promise<void> {
    const owned = known.get(name);
    if (!owned) return;
    const item = cardOf(name);
    item.dataset.sources = owned.sources.join(' ');
    const kind = kindOf(owned);
    if (kind === 'l2') {
      renderL2(item, owned);
      return;
    }
    showStatus(item, `Reading ${name}…`, 'busy');
    try {
      if (kind === 'offchain') {
        renderOffchain(item, owned, await offchain.parentSetup(owned.parentName ?? '', config.network));
      } else renderOnchain(item, owned, await offchain.parentSetup(name, config.network));
    } catch (err) {
      const region = h('div', {});
      showError(region, err);
      item.replaceChildren(...heading(owned), region);
    }
  }

  /** Merges `found` into the list and reads the new or changed names; false when nothing changed. */
  function add(found: OwnedName[]): boolean {
    const changed = mergeNames(known, found);
    for (const owned of changed) void refresh(owned.name);
    if (changed.length)
      list.append(...[...known.values()].sort(compareOwnedNames).map((o) => cardOf(o.name)));
    return changed.length > 0;
  }

  /**
   * Every name resolver-svc attributes to `address` (its pages in turn), read fresh (`noCache`): at sign-in the
   * person may just have minted or been given a name. Then says what it found.
   */
  async function discover(address: Address): Promise<void> {
    showStatus(discovery, 'Looking for the names of this wallet…', 'busy');
    const failed = new Set<string>();
    let found = false;
    let cursor: string | undefined;
    let pages = 0;
    try {
      do {
        const page = await resolver.names(address, { network: config.network, noCache: true, cursor });
        if (session.current.account !== address) return;
        for (const source of page.failedSources) failed.add(source);
        const names = fromAddressNames(page);
        found ||= names.length > 0;
        add(names);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < MAX_NAME_PAGES);
    } catch (err) {
      showError(discovery, err);
      return;
    }
    const more = cursor ? ` (the first ${pages} pages of them: there are more)` : '';
    if (failed.size) {
      showStatus(
        discovery,
        `Some names may be missing: ${[...failed].join(', ')} did not answer${more}.`,
        'warn',
      );
    } else if (found)
      showStatus(discovery, `Below: the names this platform found for this wallet${more}.`, 'idle');
    else
      showStatus(
        discovery,
        'This platform knows no names of this wallet yet: check one you control above.',
        'idle',
      );
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim().toLowerCase();
    if (!name) return;
    void busy(check, 'Checking…', errors, async () => {
      if (!add([{ name, sources: ['checked'] }])) await refresh(name);
      remember();
      input.value = '';
    });
  });

  let shownFor: string | undefined;
  let discoveredWith: string | undefined;
  session.subscribe((state) => {
    element.hidden = !state.token;
    if (state.account !== shownFor) {
      shownFor = state.account;
      known.clear();
      cards.clear();
      list.replaceChildren();
      discovery.replaceChildren();
      if (state.account) add(remembered(state.account).map((name) => ({ name, sources: ['checked'] })));
    }
    if (state.account && state.token && state.token !== discoveredWith) {
      discoveredWith = state.token;
      void discover(state.account);
    }
  });
  return {
    element,
    add: (names, source) => {
      add(names.map((name) => ({ name, sources: [source] })));
    },
  };
}
