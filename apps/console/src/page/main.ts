/** The console: reads `/config.json`, then the wallet, names and keys sections. */
import { createOffchainClient } from '@nrp/client/src/offchain';
import type { ConsoleConfig } from '../config';
import { connectSection } from './connect';
import { keysSection } from './keys';
import { namesSection } from './names';
import { Session } from './session';
import { h, showError } from './ui';
import { injectedWallet } from './wallet';

async function start(main: HTMLElement): Promise<void> {
  const response = await fetch('config.json');
  if (!response.ok) throw new Error(`config.json: ${response.status} ${response.statusText}`);
  const config = (await response.json()) as ConsoleConfig;
  const offchain = createOffchainClient({ baseUrl: config.services.offchain });
  const wallet = injectedWallet(config.network);
  const session = new Session();
  const names = namesSection(config, wallet, offchain, session);
  main.replaceChildren(
    connectSection(config, wallet, offchain, session),
    names.element,
    keysSection(config, offchain, session, names.add),
  );
}

const main = document.querySelector('main') ?? document.body.appendChild(h('main'));
start(main).catch((err: unknown) => showError(main, err));
