/**
 * The injected EIP-1193 wallet through wagmi (`@wagmi/core`, framework-agnostic) with wagmi's own `mainnet` or
 * `sepolia` chain, unchanged: accounts, the chain it is on, the switch, signatures, transactions, and ENS reads
 * through the chain's Universal Resolver (the dev chain has the ENS contracts at Sepolia's addresses).
 */
import {
  connect,
  createConfig,
  custom,
  getEnsAddress,
  injected,
  sendTransaction,
  signMessage,
  switchChain,
  waitForTransactionReceipt,
  watchAccount,
} from '@wagmi/core';
import { mainnet, sepolia } from '@wagmi/core/chains';
import type { Address, EIP1193Provider, Hex } from 'viem';
import type { ConsoleConfig } from '../config';

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

/** A mined transaction: its hash, and the contract it created (null when it created none). */
export interface SentTransaction {
  hash: Hex;
  contractAddress: Address | null;
}

export interface Wallet {
  readonly chain: typeof mainnet | typeof sepolia;
  connect(): Promise<Address>;
  /** The account the wallet shows now, without asking. */
  account(): Promise<Address | undefined>;
  chainId(): Promise<number>;
  switchChain(): Promise<void>;
  signMessage(account: Address, message: string): Promise<Hex>;
  /** Sends the transaction (`to` null: a contract creation) and waits until it is mined; throws when it reverted. */
  send(account: Address, tx: { to: Address | null; data: Hex; value: bigint }): Promise<SentTransaction>;
  /** The ETH address a (normalised) name resolves to on the wallet's chain, CCIP-Read included. */
  ensAddress(name: string): Promise<Address | null>;
  onChange(listener: () => void): void;
}

export function injectedWallet(network: ConsoleConfig['network']): Wallet | undefined {
  const provider = window.ethereum;
  if (!provider) return undefined;
  const chain = network === 'mainnet' ? mainnet : sepolia;
  // Reads go through the wallet too: the page needs no RPC URL of its own.
  const config = createConfig({
    chains: [chain],
    connectors: [
      injected({
        target: () => ({ id: 'injected', name: 'Injected wallet', provider }),
        // No "disconnected" flag to keep (storage is off), so no wallet_requestPermissions prompt either.
        shimDisconnect: false,
      }),
    ],
    transports: { [chain.id]: custom(provider) } as Record<typeof chain.id, ReturnType<typeof custom>>,
    multiInjectedProviderDiscovery: false,
    storage: null,
  });
  const [connector] = config.connectors;
  if (!connector) return undefined;
  return {
    chain,
    connect: async () => {
      const { accounts } = await connect(config, { connector });
      const [account] = accounts;
      if (!account) throw new Error('The wallet returned no account.');
      return account;
    },
    account: async () => (await connector.getAccounts())[0],
    chainId: () => connector.getChainId(),
    switchChain: async () => {
      await switchChain(config, { chainId: chain.id });
    },
    signMessage: (account, message) => signMessage(config, { account, message, connector }),
    send: async (account, tx) => {
      const hash = await sendTransaction(config, { account, chainId: chain.id, connector, ...tx });
      const receipt = await waitForTransactionReceipt(config, {
        hash,
        chainId: chain.id,
        pollingInterval: 500,
      });
      if (receipt.status !== 'success') throw new Error(`Transaction ${hash} reverted.`);
      return { hash, contractAddress: receipt.contractAddress ?? null };
    },
    ensAddress: (name) => getEnsAddress(config, { name, chainId: chain.id }),
    onChange: (listener) => {
      watchAccount(config, {
        onChange: (now, before) => {
          if (now.address !== before.address || now.chainId !== before.chainId) listener();
        },
      });
    },
  };
}
