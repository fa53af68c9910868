import type { JsonRpcApiProvider, JsonRpcPayload } from 'ethers';

export type RpcOutcome = 'ok' | 'error' | 'failed';

/** One JSON-RPC call: its method, whether the node answered it (`ok`), answered an error, or did not answer. */
export interface RpcCall {
  method: string;
  outcome: RpcOutcome;
  seconds: number;
}

/**
 * Reports every JSON-RPC call `provider` sends to `onCall`, for the RPC metrics. A batch reports each of its calls
 * with the batch's round trip; a transport failure (timeout, refused connection, bad HTTP status) reports them all
 * as `failed`. Wraps the provider's `_send`, the one place ethers sends payloads, so ChainProvider stays as it is.
 */
export function observeRpcCalls(provider: JsonRpcApiProvider, onCall: (call: RpcCall) => void): void {
  const send = provider._send.bind(provider);
  provider._send = async (payload: JsonRpcPayload | JsonRpcPayload[]) => {
    const calls = Array.isArray(payload) ? payload : [payload];
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    let results: Awaited<ReturnType<typeof send>>;
    try {
      results = await send(payload);
    } catch (err) {
      const elapsed = seconds();
      for (const call of calls) onCall({ method: call.method, outcome: 'failed', seconds: elapsed });
      throw err;
    }
    const elapsed = seconds();
    const byId = new Map(results.map((result) => [result.id, result]));
    for (const call of calls) {
      const result = byId.get(call.id);
      const outcome = result === undefined ? 'failed' : 'error' in result ? 'error' : 'ok';
      onCall({ method: call.method, outcome, seconds: elapsed });
    }
    return results;
  };
}
