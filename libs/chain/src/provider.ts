import { EnsPlugin, FetchRequest, JsonRpcProvider, Network } from 'ethers';
import type { NetworkConfig } from './networks';

class TimeoutError extends Error {
  readonly code = 'TIMEOUT';
}

/**
 * JsonRpcProvider with a static network (no eth_chainId round trip), ENS pointed at the configured registry,
 * CCIP-Read enabled, and a timeout on every RPC request and on every CCIP-Read gateway fetch.
 */
export class ChainProvider extends JsonRpcProvider {
  readonly config: NetworkConfig;

  constructor(config: NetworkConfig) {
    const request = new FetchRequest(config.rpcUrl);
    request.timeout = config.rpcTimeoutMs;
    const network = new Network(config.name, config.chainId);
    network.attachPlugin(new EnsPlugin(config.ens.ensRegistry, config.chainId));
    super(request, network, { staticNetwork: network });
    this.config = config;
    this.disableCcipRead = false;
  }

  override async ccipReadFetch(
    tx: Parameters<JsonRpcProvider['ccipReadFetch']>[0],
    calldata: string,
    urls: string[],
  ): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new TimeoutError(`CCIP-Read gateway did not answer within ${this.config.rpcTimeoutMs}ms`)),
        this.config.rpcTimeoutMs,
      );
    });
    try {
      return await Promise.race([super.ccipReadFetch(tx, calldata, urls), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function createProvider(config: NetworkConfig): ChainProvider {
  return new ChainProvider(config);
}
