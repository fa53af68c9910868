/** The console: reads `/config.json`, then the wallet, names, keys, parent, listing, mint and webhook sections. */
import { createMintClient } from '@nrp/client/mint';
import { createOffchainClient } from '@nrp/client/offchain';
import { createResolverClient } from '@nrp/client/resolver';
import type { ConsoleConfig } from '../config';
import { connectSection } from './connect';
import { imagesSection } from './images';
import { keysSection } from './keys';
import { listingSection } from './listing';
import { mintSection } from './mint';
import { namesSection } from './names';
import { Session } from './session';
import { subnamesSection } from './subnames';
import { h, showError } from './ui';
import { injectedWallet } from './wallet';
import { webhooksSection } from './webhooks';
import { workspaceSection } from './workspace';

async function start(main: HTMLElement): Promise<void> {
  const response = await fetch('config.json');
  if (!response.ok) throw new Error(`config.json: ${response.status} ${response.statusText}`);
  const config = (await response.json()) as ConsoleConfig;
  const offchain = createOffchainClient({ baseUrl: config.services.offchain });
  const wallet = injectedWallet(config.network);
  const session = new Session();
  const mint = createMintClient({ baseUrl: config.services.mint });
  // The page asks resolver-svc only for the wallet's names, fresh at sign-in: past the browser's HTTP cache too.
  const resolver = createResolverClient({
    baseUrl: config.services.resolver,
    fetch: (input, init) => fetch(input, { ...init, cache: 'no-store' }),
  });
  const workspace = workspaceSection(config, offchain, session);
  const images = imagesSection(config, wallet, offchain, session, workspace);
  const listing = listingSection(config, wallet, mint, session);
  const names = namesSection(config, wallet, offchain, resolver, session, {
    manageSubnames: (parentName) => workspace.open(parentName),
    listForMinting: (parentName) => listing.load(parentName),
    uploadAvatar: async (subname, parentName) => {
      if (await workspace.open(parentName)) images.prepareAvatar(subname.slice(0, -parentName.length - 1));
    },
  });
  main.replaceChildren(
    connectSection(config, wallet, offchain, session),
    names.element,
    keysSection(config, offchain, session, (parents) => names.add(parents, 'key')),
    workspace.element,
    subnamesSection(offchain, wallet, workspace),
    images.element,
    webhooksSection(offchain, workspace),
    listing.element,
    mintSection(config, wallet, mint, session),
  );
}

const main = document.querySelector('main') ?? document.body.appendChild(h('main'));
start(main).catch((err: unknown) => showError(main, err));
