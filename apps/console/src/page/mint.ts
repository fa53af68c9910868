/**
 * Flow 6, for a visitor: mint a subname from a listing. The estimate (price, fee, whether it may be minted and why
 * not), then mint-svc's signed parameters, the wallet's `mint(...)` transaction to the controller with their value,
 * and the name appearing in mint-svc's names index. A refused transaction mints nothing.
 */
import { type MintClient, type MintResponse } from '@nrp/client/mint';
import { MINT_CONTROLLER_MINT_ABI } from '@nrp/contracts/mint-controller-abi';
import { encodeFunctionData, formatEther, type Address, type Hex } from 'viem';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, field, h, InputError, showError, showStatus } from './ui';
import type { Wallet } from './wallet';

function mintCall(signed: MintResponse): { to: Address; data: Hex; value: bigint } {
  const c = signed.content;
  const price = BigInt(c.price);
  const fee = BigInt(c.fee);
  const ctx = {
    owner: c.owner as Address,
    label: c.label,
    parentNode: c.parentNode as Hex,
    price,
    fee,
    paymentReceiver: c.paymentReceiver as Address,
    expiry: BigInt(c.expiry),
    signatureExpiry: BigInt(c.signatureExpiry),
    verifiedMinter: c.verifiedMinter as Address,
    fuses: c.fuses,
  };
  const data = encodeFunctionData({
    abi: MINT_CONTROLLER_MINT_ABI,
    functionName: 'mint',
    args: [ctx, signed.signature as Hex, [], '0x'],
  });
  return { to: signed.mintController as Address, data, value: price + fee };
}

export function mintSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  mint: MintClient,
  session: Session,
): HTMLElement {
  const parent = h('input', {
    id: 'mint-parent',
    name: 'parentName',
    placeholder: 'example.eth',
    required: true,
  });
  const label = h('input', { id: 'mint-label', name: 'label', required: true });
  const years = h('input', {
    id: 'mint-years',
    name: 'years',
    type: 'number',
    min: '1',
    max: '100',
    value: '1',
  });
  const estimate = h('button', { type: 'submit', id: 'estimate' }, 'Estimate');
  const form = h(
    'form',
    { class: 'inline-3' },
    field('Parent', parent),
    field('Label', label),
    field('Years', years),
    estimate,
  );
  const quote = h('div', { id: 'mint-quote', 'aria-live': 'polite' });
  const progress = h('div', { id: 'mint-progress', 'aria-live': 'polite' });
  const errors = h('div', { id: 'mint-errors' });
  const minted = h('ul', { id: 'minted-names' });
  const element = h(
    'section',
    { id: 'mint', 'aria-labelledby': 'mint-heading', hidden: true },
    h('h2', { id: 'mint-heading' }, 'Mint a subname'),
    form,
    quote,
    progress,
    errors,
    h('h3', {}, 'Names you minted here'),
    minted,
  );
  const query = () => ({
    parentName: parent.value.trim().toLowerCase(),
    label: label.value.trim().toLowerCase(),
    minterAddress: session.current.account ?? '',
    isTestnet: config.network === 'sepolia',
    expiryInYears: Number(years.value) || 1,
  });

  async function listMinted(): Promise<void> {
    const owner = session.current.account;
    if (!owner) return;
    const page = await mint.listNames({ network: config.network, owner, size: 20 });
    minted.replaceChildren(
      ...page.items.map((n) =>
        h('li', { 'data-name': n.name }, `${n.name} — minted ${n.mintedAt.slice(0, 10)}`),
      ),
    );
  }

  async function send(): Promise<void> {
    const { account } = session.current;
    if (!account || !wallet) throw new InputError('Connect a wallet first.');
    const wanted = query();
    const name = `${wanted.label}.${wanted.parentName}`;
    showStatus(progress, 'Asking mint-svc for the signed parameters…', 'busy');
    const signed = await mint.requestMint(wanted);
    const call = mintCall(signed);
    showStatus(
      progress,
      `Signed: ${formatEther(call.value)} ETH to ${signed.mintController}, valid until ${new Date(signed.content.signatureExpiry * 1000).toLocaleTimeString()}. Confirm the transaction in the wallet…`,
      'busy',
    );
    const { hash } = await wallet.send(account, call);
    showStatus(progress, `Mined in ${hash}; waiting for ${name} to appear…`, 'busy');
    for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
      const page = await mint.listNames({
        network: config.network,
        owner: account,
        labelSearch: wanted.label,
        size: 20,
      });
      if (page.items.some((n) => n.name === name)) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    await listMinted();
    showStatus(progress, `${name} is yours.`);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    progress.replaceChildren();
    void busy(estimate, 'Estimating…', errors, async () => {
      quote.replaceChildren();
      const result = await mint.getMintEstimate(query());
      const total = BigInt(result.estimatedPriceWei) + BigInt(result.estimatedFeeWei);
      const facts = h(
        'dl',
        {},
        h('dt', {}, 'Price'),
        h('dd', {}, `${formatEther(BigInt(result.estimatedPriceWei))} ETH`),
        h('dt', {}, 'Fee'),
        h(
          'dd',
          {},
          `${formatEther(BigInt(result.estimatedFeeWei))} ETH${result.isStandardFee ? ' (standard)' : ''}`,
        ),
        h('dt', {}, 'Expires'),
        h('dd', {}, new Date(result.expiry * 1000).toISOString().slice(0, 10)),
      );
      if (!result.canMint) {
        quote.replaceChildren(
          facts,
          h(
            'p',
            { role: 'alert', class: 'problem' },
            `Cannot be minted: ${result.validationErrors.join(', ')}`,
          ),
        );
        return;
      }
      const mintButton = h(
        'button',
        { type: 'button', id: 'mint-now' },
        `Mint for ${formatEther(total)} ETH`,
      );
      mintButton.addEventListener('click', () =>
        busy(mintButton, 'Minting…', errors, send).then((done) => {
          if (done) mintButton.remove();
          else progress.replaceChildren();
        }),
      );
      quote.replaceChildren(facts, mintButton);
    });
  });

  let shownFor: string | undefined;
  session.subscribe((current) => {
    element.hidden = !current.account || current.chainId !== wallet?.chain.id;
    const visibleFor = element.hidden ? undefined : current.account;
    if (visibleFor === shownFor) return;
    shownFor = visibleFor;
    minted.replaceChildren();
    quote.replaceChildren();
    if (visibleFor) void listMinted().catch((err: unknown) => showError(errors, err));
  });
  return element;
}
