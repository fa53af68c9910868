/**
 * Flow 6, for the parent's owner: read and edit the mint listing of a parent (mint-svc). Saving asks mint-svc for a
 * nonce and has the wallet sign the message bound to this listing's update; a refused signature saves nothing.
 */
import { type Listing, listingSignInMessage, type MintClient, ServiceError } from '@nrp/client/mint';
import { formatEther, parseEther, type Address } from 'viem';
import type { ConsoleConfig } from '../config';
import { parsePairs } from './records';
import type { Session } from './session';
import { busy, field, h, InputError, showStatus } from './ui';
import type { Wallet } from './wallet';

function ether(value: string, what: string): string {
  try {
    return parseEther(value.trim()).toString();
  } catch {
    throw new InputError(`${what}: "${value}" is not an amount in ETH`);
  }
}

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

export interface ListingSection {
  element: HTMLElement;
  /** Loads the listing of `parentName` into the form (as _Load listing_ does). */
  load(parentName: string): void;
}

export function listingSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  mint: MintClient,
  session: Session,
): ListingSection {
  const parent = h('input', { id: 'listing-parent', name: 'parentName', placeholder: 'example.eth' });
  parent.required = true;
  const load = h('button', { type: 'submit', id: 'load-listing' }, 'Load listing');
  const loadForm = h('form', { class: 'inline' }, field('Parent to list', parent), load);
  const state = h('div', { id: 'listing-state', 'aria-live': 'polite' });
  const price = h('input', { id: 'listing-price', name: 'basePrice', inputmode: 'decimal', required: true });
  const lengthPrices = h('textarea', {
    id: 'listing-lengths',
    name: 'lengthPrices',
    rows: '3',
    placeholder: '3=0.05',
  });
  const reserved = h('input', { id: 'listing-reserved', name: 'reservedLabels', placeholder: 'admin, www' });
  const allowList = h('textarea', {
    id: 'listing-allow',
    name: 'allowList',
    rows: '2',
    placeholder: '0x… (empty: anyone)',
  });
  const verified = h('input', { id: 'listing-verified', name: 'requireVerifiedMinter', type: 'checkbox' });
  const save = h('button', { type: 'submit', id: 'save-listing' }, 'Sign and save listing');
  const editor = h(
    'form',
    { id: 'listing-editor', hidden: true },
    field('Price a year (ETH)', price),
    field('Prices by label length (length=ETH, one a line)', lengthPrices),
    field('Reserved labels (comma-separated)', reserved),
    field('Allow list (addresses; empty: anyone)', allowList),
    h('label', { class: 'check' }, verified, h('span', {}, 'Only verified minters')),
    save,
  );
  const errors = h('div', { id: 'listing-errors' });
  const element = h(
    'section',
    { id: 'listing', 'aria-labelledby': 'listing-heading', hidden: true },
    h('h2', { id: 'listing-heading' }, 'Mint listing'),
    h('p', { class: 'hint' }, 'Let visitors mint subnames of a parent you own, at your prices.'),
    loadForm,
    state,
    editor,
    errors,
  );
  let parentName = '';

  function fill(listing: Listing | undefined): void {
    price.value = listing ? formatEther(BigInt(listing.basePriceWei)) : '0.001';
    lengthPrices.value = (listing?.lengthPrices ?? [])
      .map((p) => `${p.length}=${formatEther(BigInt(p.priceWei))}`)
      .join('\n');
    reserved.value = listing?.reservedLabels.join(', ') ?? '';
    allowList.value = listing?.allowList.join('\n') ?? '';
    verified.checked = listing?.requireVerifiedMinter ?? false;
    editor.hidden = false;
  }

  loadForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(load, 'Loading…', errors, async () => {
      parentName = parent.value.trim().toLowerCase();
      editor.hidden = true;
      try {
        const listing = await mint.getListing(config.network, parentName);
        fill(listing);
        showStatus(
          state,
          `${parentName} is listed (${listing.source === 'file' ? 'by the operator' : `by ${listing.listedBy ?? ''}`}, updated ${listing.updatedAt.slice(0, 16).replace('T', ' ')}).`,
        );
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === 'LISTING_NOT_FOUND')) throw err;
        fill(undefined);
        showStatus(state, `${parentName} has no listing yet: fill in the form to create it.`, 'idle');
      }
    });
  });

  editor.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(save, 'Waiting for the signature…', errors, async () => {
      const address = session.current.account;
      if (!address || !wallet) throw new InputError('Connect a wallet first.');
      const listing = {
        basePriceWei: ether(price.value, 'Price a year'),
        lengthPrices: parsePairs(lengthPrices.value, 'Prices by label length').map(({ key, value }) => ({
          length: Number(key),
          priceWei: ether(value, `Price of length ${key}`),
        })),
        reservedLabels: lines(reserved.value),
        allowList: lines(allowList.value),
        requireVerifiedMinter: verified.checked,
      };
      const { nonce } = await mint.requestMintNonce({ address, scope: 'listing' });
      const siweMessage = listingSignInMessage({
        serviceUrl: config.services.mint,
        domain: location.host,
        address,
        nonce,
        network: config.network,
        parentName,
        operation: 'update',
      });
      const siweSignature = await wallet.signMessage(address as Address, siweMessage);
      showStatus(state, 'Saving…', 'busy');
      const saved = await mint.putListing(config.network, parentName, {
        siweMessage,
        siweSignature,
        address,
        listing,
      });
      fill(saved);
      showStatus(
        state,
        `Listing of ${parentName} saved: ${formatEther(BigInt(saved.basePriceWei))} ETH a year.`,
      );
    });
  });

  session.subscribe((current) => {
    element.hidden = !current.account;
  });
  return {
    element,
    load: (name) => {
      parent.value = name;
      element.scrollIntoView();
      loadForm.requestSubmit();
    },
  };
}
