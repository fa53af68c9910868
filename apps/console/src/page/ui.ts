/** DOM helpers of the console: elements, the problem of a failed request in words, and busy buttons. */
import { ServiceError } from '@nrp/client/offchain';
import { UserRejectedRequestError, BaseError } from 'viem';

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | ((event: Event) => void) | undefined>;

/** `h('button', { type: 'button', onclick }, 'Save')`: an element with attributes, listeners and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** A mistake in what the person typed or chose, found before anything was sent. */
export class InputError extends Error {}

/** A failure in words: a service's problem (`title`: `detail`), a refusal in the wallet, or the error's message. */
export function describeError(err: unknown): { title: string; detail: string } {
  if (err instanceof ServiceError) {
    const body = err.body as { title?: unknown } | null;
    const title = typeof body === 'object' && body && typeof body.title === 'string' ? body.title : err.code;
    const fields = err.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
    return { title: `${title} (${err.status})`, detail: fields ? `${err.detail} — ${fields}` : err.detail };
  }
  if (err instanceof InputError) return { title: 'Nothing sent', detail: err.message };
  if (err instanceof BaseError && err.walk((e) => e instanceof UserRejectedRequestError)) {
    return { title: 'Rejected in the wallet', detail: 'Nothing was signed or sent.' };
  }
  if (err instanceof TypeError) {
    return { title: 'Service unreachable', detail: `${err.message}: the service may be down.` };
  }
  if (err instanceof BaseError) return { title: 'Wallet error', detail: err.shortMessage };
  return { title: 'Error', detail: err instanceof Error ? err.message : String(err) };
}

/** Replaces `region`'s content with the error (role=alert, so screen readers announce it). */
export function showError(region: HTMLElement, err: unknown): void {
  const { title, detail } = describeError(err);
  region.replaceChildren(h('div', { class: 'problem', role: 'alert' }, h('strong', {}, title), ' ', detail));
}

/** A status line (role=status). */
export function showStatus(region: HTMLElement, text: string, state = 'ok'): void {
  region.replaceChildren(h('p', { class: `status ${state}`, role: 'status' }, text));
}

/** Runs `work` with `button` disabled and showing `label`, errors into `region`; true when it succeeded. */
export async function busy(
  button: HTMLButtonElement,
  label: string,
  region: HTMLElement,
  work: () => Promise<void>,
): Promise<boolean> {
  const text = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  button.textContent = label;
  try {
    region.replaceChildren();
    await work();
    return true;
  } catch (err) {
    showError(region, err);
    return false;
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    button.textContent = text;
  }
}

/** A labelled input: `<label>Text <input …></label>`. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): HTMLLabelElement {
  return h('label', {}, h('span', {}, label), input);
}

/** A table with a header row of `columns` and `rows` as its body. */
export function table(id: string, columns: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  return h(
    'table',
    { id },
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows),
  );
}

/** Offers `text` as a file download named `fileName`. */
export function download(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
