/** Flow 1: connect the injected wallet, see a wrong chain and switch, sign in to the offchain service. */
import { type OffchainClient, sessionSignInMessage } from '@nrp/client/offchain';
import type { ConsoleConfig } from '../config';
import type { Session } from './session';
import { busy, h, showStatus } from './ui';
import type { Wallet } from './wallet';

export function connectSection(
  config: ConsoleConfig,
  wallet: Wallet | undefined,
  offchain: OffchainClient,
  session: Session,
): HTMLElement {
  const status = h('div', { id: 'wallet-status', 'aria-live': 'polite' });
  const errors = h('div', { id: 'wallet-errors' });
  const actions = h('div', { class: 'actions' });
  const section = h('section', { id: 'wallet', 'aria-labelledby': 'wallet-heading' });
  section.append(h('h2', { id: 'wallet-heading' }, 'Wallet'), status, actions, errors);
  if (!wallet) {
    showStatus(
      status,
      'No wallet found: install an Ethereum wallet extension (EIP-1193) and reload.',
      'warn',
    );
    return section;
  }
  const expected = wallet.chain;

  const connect = h('button', { type: 'button', id: 'connect' }, 'Connect wallet');
  connect.addEventListener('click', () =>
    busy(connect, 'Connecting…', errors, async () => {
      const account = await wallet.connect();
      session.update({ account, chainId: await wallet.chainId(), token: undefined });
    }),
  );
  const switchChain = h('button', { type: 'button', id: 'switch-chain' }, `Switch to ${expected.name}`);
  switchChain.addEventListener('click', () =>
    busy(switchChain, 'Switching…', errors, async () => {
      await wallet.switchChain();
      session.update({ chainId: await wallet.chainId() });
    }),
  );
  const signIn = h('button', { type: 'button', id: 'sign-in' }, 'Sign in');
  signIn.addEventListener('click', () =>
    busy(signIn, 'Waiting for the signature…', errors, async () => {
      const { account } = session.current;
      if (!account) return;
      const { nonce } = await offchain.requestSessionNonce(account);
      const siweMessage = sessionSignInMessage({
        serviceUrl: config.services.offchain,
        domain: location.host,
        address: account,
        nonce,
        network: config.network,
      });
      const siweSignature = await wallet.signMessage(account, siweMessage);
      const { token } = await offchain.signIn({ siweMessage, siweSignature, address: account });
      session.update({ token });
    }),
  );
  const signOut = h('button', { type: 'button', id: 'sign-out', class: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', () =>
    busy(signOut, 'Signing out…', errors, async () => {
      const { token } = session.current;
      session.update({ token: undefined });
      if (token) await offchain.signOut(token);
    }),
  );

  wallet.onChange(() => {
    void (async () => {
      const chainId = await wallet.chainId().catch(() => undefined);
      const account = await wallet.account().catch(() => undefined);
      // Another account is another person: the session of the previous one ends here.
      if (session.current.account && account !== session.current.account) {
        session.update({ account, chainId, token: undefined });
      } else session.update({ chainId });
    })();
  });

  session.subscribe(({ account, chainId, token }) => {
    if (!account) {
      showStatus(status, 'Not connected.', 'idle');
      actions.replaceChildren(connect);
      return;
    }
    if (chainId !== expected.id) {
      showStatus(
        status,
        `Connected as ${account}, but the wallet is on chain ${chainId ?? 'unknown'}: this console works on ${expected.name} (chain ${expected.id}).`,
        'warn',
      );
      actions.replaceChildren(switchChain);
      return;
    }
    showStatus(status, `${token ? 'Signed in' : 'Connected'} as ${account} on ${expected.name}.`, 'ok');
    actions.replaceChildren(token ? signOut : signIn);
  });
  session.update({});
  return section;
}
