/** The injected EIP-1193 wallet through viem: accounts, the chain it is on, the switch, signatures, transactions. */
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  type EIP1193Provider,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { mainnet, sepolia } from 'viem/chains';
import type { ConsoleConfig } from '../config';

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

export interface Wallet {
  readonly chain: typeof mainnet | typeof sepolia;
  connect(): Promise<Address>;
  /** The account the wallet shows now, without asking. */
  account(): Promise<Address | undefined>;
  chainId(): Promise<number>;
  switchChain(): Promise<void>;
  signMessage(account: Address, message: string): Promise<Hex>;
  /** Sends the transaction and waits until it is mined; throws when it reverted. */
  send(account: Address, tx: { to: Address; data: Hex; value: bigint }): Promise<Hex>;
  onChange(listener: () => void): void;
}

export function injectedWallet(network: ConsoleConfig['network']): Wallet | undefined {
  const provider = window.ethereum;
  if (!provider) return undefined;
  const chain = network === 'mainnet' ? mainnet : sepolia;
  const wallet: WalletClient = createWalletClient({ transport: custom(provider) });
  const reader: PublicClient = createPublicClient({ chain, transport: custom(provider) });
  return {
    chain,
    connect: async () => {
      const [account] = await wallet.requestAddresses();
      if (!account) throw new Error('The wallet returned no account.');
      return account;
    },
    account: async () => (await wallet.getAddresses())[0],
    chainId: () => wallet.getChainId(),
    switchChain: () => wallet.switchChain({ id: chain.id }),
    signMessage: (account, message) => wallet.signMessage({ account, message }),
    send: async (account, tx) => {
      const hash = await wallet.sendTransaction({ account, chain, ...tx });
      const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 500 });
      if (receipt.status !== 'success') throw new Error(`Transaction ${hash} reverted.`);
      return hash;
    },
    onChange: (listener) => {
      provider.on?.('chainChanged', listener);
      provider.on?.('accountsChanged', listener);
    },
  };
}
