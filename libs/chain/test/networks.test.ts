import type { EnsPlugin } from 'ethers';
import {
  DEFAULT_ENS_ADDRESSES,
  DEFAULT_RPC_TIMEOUT_MS,
  NetworkConfigError,
  createProvider,
  envPrefix,
  loadNetworksConfig,
  networkByChainId,
  networksEnvSchema,
} from '../src';

describe('loadNetworksConfig', () => {
  it('defaults to the real ENS deployments and public RPCs', () => {
    const config = loadNetworksConfig({});
    expect(config.mainnet.chainId).toBe(1);
    expect(config.sepolia.chainId).toBe(11155111);
    expect(config.mainnet.ens).toEqual(DEFAULT_ENS_ADDRESSES.mainnet);
    expect(config.sepolia.ens.nameWrapper).toBe('0x0635513f179D50A207757E05759CbD106d7dFcE8');
    expect(config.mainnet.ens.ensRegistry).toBe('0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e');
    expect(config.sepolia.rpcTimeoutMs).toBe(DEFAULT_RPC_TIMEOUT_MS);
  });

  it('reads per-network overrides (addresses checksummed) and RPC_TIMEOUT_MS', () => {
    const config = loadNetworksConfig({
      SEPOLIA_RPC_URL: 'http://127.0.0.1:8545',
      SEPOLIA_ENS_REGISTRY: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      SEPOLIA_UNIVERSAL_RESOLVER: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
      MAINNET_NAME_WRAPPER: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      RPC_TIMEOUT_MS: '2500',
    });
    expect(config.sepolia.rpcUrl).toBe('http://127.0.0.1:8545');
    expect(config.sepolia.ens.ensRegistry).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
    expect(config.sepolia.ens.universalResolver).toBe('0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512');
    expect(config.sepolia.ens.nameWrapper).toBe(DEFAULT_ENS_ADDRESSES.sepolia.nameWrapper);
    expect(config.mainnet.ens.nameWrapper).toBe('0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0');
    expect(config.mainnet.rpcTimeoutMs).toBe(2500);
    expect(networkByChainId(config, 11155111n)?.name).toBe('sepolia');
    expect(networkByChainId(config, 5)).toBeUndefined();
  });

  it('rejects bad values, naming the variable', () => {
    expect(() => loadNetworksConfig({ SEPOLIA_ENS_REGISTRY: '0x1234' })).toThrow(/SEPOLIA_ENS_REGISTRY/);
    // mixed case is an EIP-55 checksum, and a wrong one is a typo
    expect(() =>
      loadNetworksConfig({ SEPOLIA_ENS_REGISTRY: '0x5fbDB2315678afecb367f032d93F642f64180aa3' }),
    ).toThrow(/SEPOLIA_ENS_REGISTRY/);
    expect(() => loadNetworksConfig({ MAINNET_RPC_URL: 'not a url' })).toThrow(NetworkConfigError);
    expect(() => loadNetworksConfig({ RPC_TIMEOUT_MS: '-1' })).toThrow(/RPC_TIMEOUT_MS/);
  });

  it('exposes a zod object services can merge into their config schema', () => {
    expect(Object.keys(networksEnvSchema.shape)).toEqual(
      expect.arrayContaining(['SEPOLIA_RPC_URL', 'MAINNET_UNIVERSAL_RESOLVER', 'RPC_TIMEOUT_MS']),
    );
  });
});

describe('createProvider', () => {
  it('uses a static network with the ENS plugin at the configured registry', async () => {
    const config = loadNetworksConfig({ SEPOLIA_ENS_REGISTRY: '0x5fbdb2315678afecb367f032d93f642f64180aa3' });
    const provider = createProvider(config.sepolia);
    try {
      const network = await provider.getNetwork(); // no RPC: static network
      expect(network.chainId).toBe(11155111n);
      expect(network.getPlugin<EnsPlugin>('org.ethers.plugins.network.Ens')?.address).toBe(
        '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      );
      expect(provider.disableCcipRead).toBe(false);
    } finally {
      provider.destroy();
    }
  });
});

describe('envPrefix', () => {
  it("is the prefix of a network's variables: upper case, dashes as underscores", () => {
    expect(envPrefix('mainnet')).toBe('MAINNET');
    expect(envPrefix('sepolia')).toBe('SEPOLIA');
    expect(envPrefix('base')).toBe('BASE');
    expect(envPrefix('base-sepolia')).toBe('BASE_SEPOLIA');
  });
});
