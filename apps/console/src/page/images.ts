/**
 * Flow 5: upload an avatar or a header for a subname of the open parent (metadata-svc, signed by the wallet for this
 * one upload). Until the name's `avatar`/`header` text record holds the image's stable URL the upload is pending;
 * the page offers to set the record (offchain-svc, with the open parent's key) and shows the image once confirmed.
 */
import { createMetadataClient, type ImageKind, imageSignInMessage, imageUrl } from '@nrp/client/metadata';
import type { OffchainClient } from '@nrp/client/offchain';
import type { Address } from 'viem';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, field, h, InputError, showError, showStatus } from './ui';
import type { Wallet } from './wallet';
import type { WorkspaceSection } from './workspace';

export interface ImagesSection {
  element: HTMLElement;
  /** Readies the form for the avatar of the open parent's subname `label`: the person chooses the file. */
  prepareAvatar(label: string): void;
}

export function imagesSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  offchain: OffchainClient,
  session: Session,
  workspace: WorkspaceSection,
): ImagesSection {
  const metadata = createMetadataClient({ baseUrl: config.services.metadata });
  const label = h('input', { id: 'image-label', name: 'label', required: true });
  const kind = h(
    'select',
    { id: 'image-kind', name: 'kind' },
    h('option', { value: 'avatar' }, 'Avatar'),
    h('option', { value: 'header' }, 'Header'),
  );
  const file = h('input', {
    id: 'image-file',
    name: 'file',
    type: 'file',
    accept: 'image/*',
    required: true,
  });
  const upload = h('button', { type: 'submit', id: 'upload-image' }, 'Upload');
  const form = h(
    'form',
    {},
    field('Subname label', label),
    field('Image', kind),
    field('File', file),
    upload,
  );
  const progress = h('div', { id: 'image-progress', 'aria-live': 'polite' });
  const errors = h('div', { id: 'image-errors' });
  const shown = h('div', { id: 'image-shown' });
  const element = h(
    'section',
    { id: 'images', 'aria-labelledby': 'images-heading', hidden: true },
    h('h2', { id: 'images-heading' }, 'Avatar and header'),
    h(
      'p',
      { class: 'hint' },
      'The owner of the subname signs the upload; the record then points at the image.',
    ),
    form,
    progress,
    errors,
    shown,
  );
  let waiting: AbortController | undefined;

  async function pointRecord(subname: string, imageKind: ImageKind, url: string): Promise<void> {
    const open = workspace.current();
    if (!open) return;
    const record = await offchain.getSubname(subname);
    const texts = Object.entries({ ...record.texts, [imageKind]: url }).map(([key, value]) => ({
      key,
      value,
    }));
    await offchain.createOrUpdateSubname(
      { parentName: record.parentName, label: record.label, texts },
      open.apiKey,
    );
  }

  /** Checks until the upload is visible (the record points at it), then shows it; a newer wait cancels this one. */
  function showWhenConfirmed(subname: string, imageKind: ImageKind, uploadedAt: string): void {
    waiting?.abort();
    const controller = new AbortController();
    waiting = controller;
    const target = { network: config.network, subname };
    metadata
      .waitForImage(target, imageKind, {
        uploadedAt,
        signal: controller.signal,
        initialDelayMs: 500,
        maxDelayMs: 5000,
      })
      .then((url) => {
        showStatus(progress, `The ${imageKind} of ${subname} is shown.`);
        const src = `${url}?v=${Date.parse(uploadedAt)}`;
        shown.replaceChildren(h('img', { src, alt: `The ${imageKind} of ${subname}`, class: imageKind }));
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) showError(errors, err);
      });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(upload, 'Uploading…', errors, async () => {
      const open = workspace.current();
      const chosen = file.files?.[0];
      const address = session.current.account;
      if (!open || !chosen || !address || !wallet) throw new InputError('Choose a subname and a file first.');
      const subname = `${label.value.trim().toLowerCase()}.${open.parentName}`;
      const imageKind = kind.value as ImageKind;
      shown.replaceChildren();
      showStatus(progress, 'Sign the upload in the wallet…', 'busy');
      try {
        const { nonce } = await metadata.getNonce({ address, scope: imageKind });
        const siweMessage = imageSignInMessage({
          serviceUrl: config.services.metadata,
          domain: location.host,
          address,
          nonce,
          network: config.network,
          subname,
          kind: imageKind,
          operation: 'upload',
        });
        const siweSignature = await wallet.signMessage(address as Address, siweMessage);
        showStatus(progress, `Uploading ${chosen.name} (${Math.ceil(chosen.size / 1024)} KB)…`, 'busy');
        const input = { network: config.network, subname, siweMessage, siweSignature, address, file: chosen };
        const result =
          imageKind === 'avatar' ? await metadata.uploadAvatar(input) : await metadata.uploadHeader(input);
        if (!result.pending) {
          showStatus(
            progress,
            `Uploaded; the record already points at it: checking the ${imageKind}…`,
            'busy',
          );
          showWhenConfirmed(subname, imageKind, result.uploadedAt);
          return;
        }
        const url = imageUrl(config.services.metadata, { network: config.network, subname }, imageKind);
        const point = h('button', { type: 'button', id: 'point-record' }, `Set the ${imageKind} record`);
        const pointErrors = h('div', {});
        point.addEventListener('click', () =>
          busy(point, 'Setting the record…', pointErrors, async () => {
            await pointRecord(subname, imageKind, url);
            point.remove();
            showStatus(progress, `Record set; waiting for the confirmation of the ${imageKind}…`, 'busy');
          }),
        );
        showStatus(
          progress,
          `Pending: ${result.message ?? `set the ${imageKind} text record to ${url}`}`,
          'warn',
        );
        shown.replaceChildren(h('p', {}, 'Record value: ', h('code', {}, url)), point, pointErrors);
        showWhenConfirmed(subname, imageKind, result.uploadedAt);
      } catch (err) {
        progress.replaceChildren();
        throw err;
      }
    });
  });

  workspace.subscribe((open) => {
    element.hidden = !open;
    waiting?.abort();
    progress.replaceChildren();
    shown.replaceChildren();
  });
  return {
    element,
    prepareAvatar: (subnameLabel) => {
      label.value = subnameLabel;
      kind.value = 'avatar';
      element.scrollIntoView();
      file.focus();
    },
  };
}
