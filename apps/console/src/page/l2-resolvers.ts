/**
 * The L1 resolver of a parent whose subnames live on an L2 (offchain-svc's setup `l2`): the resolvers it may use,
 * each with what it trusts in the service's words (the page adds none of its own), which one is set, and for its
 * controller the button that switches to another. Also the one way the page sends setup transactions.
 */
import type { L2ParentSetup, L2ResolverOption, SetupStep } from '@nrp/client/offchain';
import type { Address, Hex } from 'viem';
import { h, showStatus } from './ui';
import type { Wallet } from './wallet';

/** A setup transaction: a call, or (`to` null) a deployment whose address the service announced. */
export type SetupTransaction = SetupStep | L2ResolverOption['steps'][number];

/**
 * Sends `steps` through the wallet one after the other ("Transaction i of n"), each mined before the next. A
 * deployment that got another address than the service announced (the account sent something else first) stops the
 * steps, so no setResolver names an address without the contract.
 */
export async function sendSteps(
  wallet: Wallet,
  from: Address,
  steps: readonly SetupTransaction[],
  progress: HTMLElement,
): Promise<void> {
  for (const [index, step] of steps.entries()) {
    showStatus(
      progress,
      `Transaction ${index + 1} of ${steps.length}: ${step.description} — confirm in the wallet…`,
      'busy',
    );
    const sent = await wallet.send(from, {
      to: step.to as Address | null,
      data: step.data as Hex,
      value: BigInt(step.value),
    });
    const announced = 'contractAddress' in step ? step.contractAddress : null;
    if (announced && sent.contractAddress?.toLowerCase() !== announced.toLowerCase()) {
      throw new Error(
        `The contract was deployed at ${sent.contractAddress ?? 'no address'}, not at ${announced} (${from} sent ` +
          'another transaction first), so the resolver was not changed: check the name again.',
      );
    }
  }
}

/**
 * Each resolver `l2` offers, the one set marked (`aria-current`), with `switchTo` offered on the others that have
 * steps; without `switchTo` (the account cannot send them) only what each trusts is shown.
 */
export function l2ResolverChoice(
  l2: L2ParentSetup,
  switchTo: ((option: L2ResolverOption, button: HTMLButtonElement) => void) | undefined,
): HTMLElement {
  const option = (offer: L2ResolverOption) => {
    const label = `${offer.contract} (${offer.kind})`;
    const button = h('button', { type: 'button', class: 'secondary' }, `Switch to ${offer.contract}`);
    button.addEventListener('click', () => switchTo?.(offer, button));
    return h(
      'li',
      {
        class: 'card resolver-option',
        'data-kind': offer.kind,
        'data-chosen': String(offer.chosen),
        'aria-current': offer.chosen ? 'true' : undefined,
      },
      h(
        'h4',
        {},
        label,
        ' ',
        h(
          'span',
          { class: `badge ${offer.chosen ? 'ready' : 'needs-setup'}` },
          offer.chosen ? 'In use' : 'Not set',
        ),
      ),
      h('p', { class: 'trust' }, offer.trust),
      h('dl', {}, h('dt', {}, 'Gateway'), h('dd', {}, offer.gatewayUrl)),
      !offer.chosen && offer.steps.length > 0 && switchTo && h('div', { class: 'actions' }, button),
    );
  };
  return h(
    'div',
    { class: 'resolver-choice' },
    h(
      'p',
      { class: 'hint' },
      `Its subnames live in the registry ${l2.registry} on ${l2.network}; the L1 resolves them through the one ` +
        'of these resolvers set on the name:',
    ),
    h('ul', { class: 'cards' }, ...l2.options.map(option)),
  );
}
