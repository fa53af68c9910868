/**
 * Flow 7: the webhooks of the open parent's API key (offchain-svc): register one (its signing secret shown once),
 * list and delete them, see a webhook's deliveries (status, attempts, the receiver's answer) and redeliver one.
 */
import type { OffchainClient, Webhook, WebhookDelivery, WebhookEventType } from '@nrp/client/offchain';
import { busy, field, h, InputError, showError, showStatus, table } from './ui';
import type { WorkspaceSection } from './workspace';

/** offchain-svc's WEBHOOK_EVENT_TYPES (the schema module is not imported: it brings zod into the page). */
const EVENTS: WebhookEventType[] = [
  'subname.created',
  'subname.updated',
  'subname.deleted',
  'image.pending',
  'image.confirmed',
  'image.discarded',
  'image.deleted',
  'mint.signed',
  'name.minted',
  'name.transferred',
];

export function webhooksSection(offchain: OffchainClient, workspace: WorkspaceSection): HTMLElement {
  const url = h('input', {
    id: 'webhook-url',
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://…',
  });
  const boxes = EVENTS.map((event) =>
    h('input', { type: 'checkbox', name: 'events', value: event, checked: event.startsWith('subname.') }),
  );
  const create = h('button', { type: 'submit', id: 'create-webhook' }, 'Register webhook');
  const form = h(
    'form',
    { id: 'webhook-form' },
    field('Receiver URL', url),
    h(
      'fieldset',
      { class: 'events' },
      h('legend', {}, 'Events'),
      ...boxes.map((box) => h('label', { class: 'check' }, box, h('span', {}, box.value))),
    ),
    create,
  );
  const errors = h('div', { id: 'webhook-errors' });
  const created = h('div', { id: 'created-webhook' });
  const state = h('div', { id: 'webhooks-state', 'aria-live': 'polite' });
  const list = h('div', { class: 'scroll' });
  const deliveries = h('div', { id: 'deliveries', class: 'scroll' });
  const element = h(
    'section',
    { id: 'webhooks', 'aria-labelledby': 'webhooks-heading', hidden: true },
    h('h2', { id: 'webhooks-heading' }, 'Webhooks'),
    h(
      'p',
      { class: 'hint' },
      'Each webhook belongs to the open API key and receives the events of its names.',
    ),
    form,
    errors,
    created,
    state,
    list,
    deliveries,
  );
  const key = () => workspace.current()?.apiKey ?? '';

  function deliveryRow(webhook: Webhook, delivery: WebhookDelivery): HTMLTableRowElement {
    const redeliver = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-label': `Redeliver ${delivery.eventType} ${delivery.id}` },
      'Redeliver',
    );
    const cell = h('td', {}, redeliver);
    redeliver.addEventListener('click', () =>
      busy(redeliver, 'Redelivering…', cell, async () => {
        await offchain.redeliverWebhookDelivery(webhook.id, delivery.id, key());
        await showDeliveries(webhook);
      }),
    );
    const answer = delivery.lastStatusCode ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? '—');
    return h(
      'tr',
      { 'data-delivery': delivery.id, 'data-status': delivery.status },
      h('td', {}, delivery.eventType),
      h('td', {}, delivery.status),
      h('td', {}, String(delivery.attempts)),
      h('td', {}, answer),
      h('td', {}, delivery.createdAt.slice(11, 19)),
      cell,
    );
  }

  async function showDeliveries(webhook: Webhook): Promise<void> {
    const refresh = h('button', { type: 'button', class: 'secondary', id: 'refresh-deliveries' }, 'Refresh');
    refresh.addEventListener('click', () =>
      busy(refresh, 'Refreshing…', deliveries, () => showDeliveries(webhook)),
    );
    const page = await offchain.listWebhookDeliveries(webhook.id, key(), { limit: 50 });
    deliveries.replaceChildren(
      h('h3', {}, `Deliveries to ${webhook.url}`),
      refresh,
      page.items.length
        ? table(
            'deliveries-table',
            ['Event', 'Status', 'Attempts', 'Last answer', 'Created', ''],
            page.items.map((d) => deliveryRow(webhook, d)),
          )
        : h('p', { role: 'status' }, 'No deliveries yet.'),
    );
  }

  function row(webhook: Webhook): HTMLTableRowElement {
    const show = h('button', { type: 'button', 'aria-label': `Deliveries of ${webhook.url}` }, 'Deliveries');
    const remove = h(
      'button',
      { type: 'button', class: 'danger', 'aria-label': `Delete webhook ${webhook.url}` },
      'Delete',
    );
    const cell = h('td', { class: 'actions' }, show, remove);
    show.addEventListener('click', () => busy(show, 'Loading…', deliveries, () => showDeliveries(webhook)));
    remove.addEventListener('click', () =>
      busy(remove, 'Deleting…', cell, async () => {
        await offchain.deleteWebhook(webhook.id, key());
        deliveries.replaceChildren();
        await load();
      }),
    );
    return h(
      'tr',
      { 'data-webhook': webhook.id },
      h('td', { class: 'mono' }, webhook.url),
      h('td', {}, webhook.events.join(', ')),
      cell,
    );
  }

  async function load(): Promise<void> {
    showStatus(state, 'Loading webhooks…', 'busy');
    try {
      const webhooks = await offchain.listWebhooks(key());
      list.replaceChildren(table('webhooks-table', ['URL', 'Events', ''], webhooks.map(row)));
      showStatus(state, webhooks.length ? `${webhooks.length} webhook(s).` : 'No webhooks yet.', 'idle');
    } catch (err) {
      showError(state, err);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(create, 'Registering…', errors, async () => {
      const events = boxes.filter((b) => b.checked).map((b) => b.value as WebhookEventType);
      if (!events.length) throw new InputError('Choose at least one event.');
      const webhook = await offchain.createWebhook({ url: url.value.trim(), events }, key());
      created.replaceChildren(
        h(
          'div',
          { class: 'once', role: 'alert' },
          h('p', {}, 'Signing secret of the new webhook, shown only now (Standard Webhooks):'),
          h('code', { id: 'webhook-secret' }, webhook.secret),
        ),
      );
      url.value = '';
      await load();
    });
  });

  workspace.subscribe((open) => {
    element.hidden = !open;
    created.replaceChildren();
    deliveries.replaceChildren();
    list.replaceChildren();
    if (open) void load();
  });
  return element;
}
