/**
 * The wallet the console's browser test injects: an EIP-1193 provider (`window.ethereum`) whose signatures come
 * from an anvil account's key in the test process and whose other requests (`eth_sendTransaction` included: anvil's
 * accounts are unlocked) go to anvil. It starts on the wrong chain (mainnet), can be told to reject the next request
 * of a method (code 4001) or to send a transaction of its own before the next one, and can switch to another of the
 * stack's accounts (`accountsChanged`).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { type Hex, hexToString, isHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevStackFile } from '@nrp/testkit';

interface WalletRequest {
  method: string;
  params?: unknown[];
}

/** Defines window.ethereum in the page; every request goes to the test's `nrpWallet`. */
const INJECTED_PROVIDER = `
  (() => {
    const listeners = {};
    const emit = (event, value) => (listeners[event] || []).forEach((l) => l(value));
    window.nrpWalletEmit = emit;
    window.ethereum = {
      async request({ method, params }) {
        const answer = await window.nrpWallet({ method, params });
        if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
        if (method === 'wallet_switchEthereumChain') emit('chainChanged', params[0].chainId);
        return answer.result;
      },
      on(event, listener) { (listeners[event] = listeners[event] || []).push(listener); },
      removeListener(event, listener) { listeners[event] = (listeners[event] || []).filter((l) => l !== listener); },
    };
  })();
`;

/** An account whose signatures the test makes itself (a smart account): its address and its signature of a text. */
export interface ExternalAccount {
  address: Hex;
  signMessage(message: string): string;
}

export interface TestWallet {
  chainId: number;
  /** Index into the stack's accounts. */
  accountIndex: number;
  /** A method whose next request the wallet rejects (EIP-1193 code 4001). */
  rejectNext: string | undefined;
  /** Before the next eth_sendTransaction, sends one of its own first (0 ETH to itself), as another page might. */
  sendFirst: boolean;
  readonly address: Hex;
  /** Becomes another of the stack's accounts and tells the page (`accountsChanged`). */
  switchAccount(page: Page, index: number): Promise<void>;
  /** Becomes `account` (it signs; it sends no transactions) and tells the page (`accountsChanged`). */
  useAccount(page: Page, account: ExternalAccount): Promise<void>;
}

export async function injectWallet(context: BrowserContext, stack: DevStackFile): Promise<TestWallet> {
  const accounts = stack.accounts.map((a) => privateKeyToAccount(a.privateKey));
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const response = await fetch(stack.chains.sepolia.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw Object.assign(new Error(body.error.message), body.error);
    return body.result;
  };
  let external: ExternalAccount | undefined;
  const announce = (page: Page) =>
    page.evaluate((address) => {
      (window as unknown as { nrpWalletEmit(event: string, value: unknown): void }).nrpWalletEmit(
        'accountsChanged',
        [address],
      );
    }, wallet.address);
  const wallet: TestWallet = {
    chainId: 1,
    accountIndex: 0,
    rejectNext: undefined,
    sendFirst: false,
    get address() {
      if (external) return external.address;
      const account = accounts[wallet.accountIndex];
      if (!account) throw new Error(`no account ${wallet.accountIndex}`);
      return account.address;
    },
    async switchAccount(page, index) {
      external = undefined;
      wallet.accountIndex = index;
      await announce(page);
    },
    async useAccount(page, account) {
      external = account;
      await announce(page);
    },
  };
  await context.exposeFunction('nrpWallet', async ({ method, params = [] }: WalletRequest) => {
    if (wallet.rejectNext === method) {
      wallet.rejectNext = undefined;
      return { error: { code: 4001, message: 'User rejected the request.' } };
    }
    const account = accounts[wallet.accountIndex];
    try {
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return { result: [wallet.address] };
        case 'eth_chainId':
          return { result: `0x${wallet.chainId.toString(16)}` };
        case 'wallet_switchEthereumChain': {
          const [{ chainId }] = params as [{ chainId: Hex }];
          if (Number(chainId) !== stack.chains.sepolia.chainId) {
            return { error: { code: 4902, message: `Unrecognized chain ${chainId}` } };
          }
          wallet.chainId = Number(chainId);
          return { result: null };
        }
        case 'personal_sign': {
          const [message] = params as [Hex];
          const text = isHex(message) ? hexToString(message) : message;
          return {
            result: external ? external.signMessage(text) : await account?.signMessage({ message: text }),
          };
        }
        case 'eth_sendTransaction':
          if (wallet.sendFirst) {
            wallet.sendFirst = false;
            await rpc(method, [{ from: wallet.address, to: wallet.address, value: '0x0' }]);
          }
          return { result: await rpc(method, params) };
        default:
          return { result: await rpc(method, params) };
      }
    } catch (err) {
      const { code = -32603, message } = err as { code?: number; message: string };
      return { error: { code, message } };
    }
  });
  await context.addInitScript(INJECTED_PROVIDER);
  return wallet;
}
