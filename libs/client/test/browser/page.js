// The page of the browser test, bundled with the packed client from its tarball: a wallet (viem's local account,
// a fresh key) signs in for this page's own domain, uploads an avatar, waits for it to be confirmed, shows the
// resolved profile and deletes the avatar.
import { createMetadataClient, imageSignInMessage, ServiceError } from '@nrp/client/metadata';
import { createResolverClient } from '@nrp/client/resolver';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const params = new URLSearchParams(location.search);
const metadataUrl = params.get('metadata');
const subname = params.get('subname');
const network = 'sepolia';
const account = privateKeyToAccount(generatePrivateKey());
const metadata = createMetadataClient({ baseUrl: metadataUrl });
const resolver = createResolverClient({ baseUrl: params.get('resolver') });

const $ = (id) => document.getElementById(id);
$('origin').textContent = location.origin;
$('address').textContent = account.address;
$('subname').textContent = subname;

function status(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
  const item = document.createElement('li');
  item.textContent = text;
  $('log').append(item);
}

async function signedFields(kind, operation) {
  const { nonce } = await metadata.getNonce({ address: account.address, scope: kind });
  const siweMessage = imageSignInMessage({
    serviceUrl: metadataUrl,
    domain: location.host,
    address: account.address,
    nonce,
    network,
    subname,
    kind,
    operation,
  });
  return {
    siweMessage,
    siweSignature: await account.signMessage({ message: siweMessage }),
    address: account.address,
  };
}

async function upload() {
  status('signing', `Signing in as ${account.address} for ${location.host}…`);
  const file = await (await fetch('./avatar.png')).blob();
  const result = await metadata.uploadAvatar({
    ...(await signedFields('avatar', 'upload')),
    network,
    subname,
    file,
    fileName: 'avatar.png',
  });
  $('record').textContent = result.avatarUrl;
  status(
    result.pending ? 'pending' : 'confirmed',
    result.pending ? `Pending: ${result.message}` : 'Visible at once',
  );
  await metadata.waitForImage({ network, subname }, 'avatar', {
    uploadedAt: result.uploadedAt,
    signal: AbortSignal.timeout(120_000),
    initialDelayMs: 500,
    maxDelayMs: 2000,
  });
  status('confirmed', 'Confirmed: the avatar record points at the upload');
  const profile = await resolver.getProfile(subname, { network, texts: ['avatar', 'name'] });
  const avatar = profile.texts.find((text) => text.key === 'avatar')?.value ?? '';
  $('profile-name').textContent = profile.name;
  $('profile-avatar-record').textContent = `avatar: ${avatar}`;
  $('profile').hidden = false;
  $('avatar').src = avatar;
  await $('avatar').decode();
  status('profile', `Profile of ${profile.name} resolved; its avatar is loaded`);
}

async function remove() {
  status('signing', 'Signing in to delete…');
  const result = await metadata.deleteImage('avatar', {
    ...(await signedFields('avatar', 'delete')),
    network,
    subname,
  });
  $('profile').hidden = true;
  status('deleted', `Deleted at ${result.deletedAt}`);
}

function run(step) {
  step().catch((err) =>
    status('error', err instanceof ServiceError ? `${err.status} ${err.code}: ${err.detail}` : String(err)),
  );
}
$('upload').addEventListener('click', () => run(upload));
$('delete').addEventListener('click', () => run(remove));
