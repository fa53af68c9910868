/** Who is signed in: the connected account, and the offchain service's session token once signed in. */
import type { Address } from 'viem';

export interface SessionState {
  account?: Address;
  chainId?: number;
  token?: string;
}

type Listener = (state: SessionState) => void;

export class Session {
  private state: SessionState = {};
  private readonly listeners: Listener[] = [];

  get current(): SessionState {
    return this.state;
  }

  update(change: Partial<SessionState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener(this.state);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }
}
