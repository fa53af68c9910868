import {
  envPrefix,
  isUpstreamError,
  mintControllerInterface,
  perNetwork,
  readView,
  type L2ParentDirectory,
  type L2Providers,
  type NetworkName,
  type NetworkProviders,
} from '@nrp/chain';
import { perL2Network, type L2NetworkName } from '@nrp/ens';
import { NotReady } from '@nrp/server';
import type { Provider } from 'ethers';
import { DEFAULT_BASE_REGISTRAR, type Config } from '../config';
import type { MintContext, MintNetworkContext } from '../context';
import { L2MintControllers } from './l2-controllers';

/** The L1s as minting sees them: their ENS contracts, .eth registrar and mint controller (`<NETWORK>_…`). */
export function mintNetworks(
  config: Config,
  providers: NetworkProviders,
): Record<NetworkName, MintNetworkContext> {
  return perNetwork((name) => {
    const provider = providers[name];
    const net = provider.config;
    const prefix = envPrefix(name);
    return {
      config: net,
      provider,
      contracts: {
        ensRegistry: net.ens.ensRegistry,
        nameWrapper: net.ens.nameWrapper,
        baseRegistrar: config[`${prefix}_BASE_REGISTRAR`] ?? DEFAULT_BASE_REGISTRAR,
      },
      mintController: config[`${prefix}_MINT_CONTROLLER`],
    };
  });
}

/** The L2MintControllers of each L2 (`<L2>_L2_MINT_CONTROLLERS`), whose registries' parents `directory` reads. */
export function l2MintControllers(
  config: Config,
  providers: L2Providers,
  directory: L2ParentDirectory,
): Record<L2NetworkName, L2MintControllers> {
  return perL2Network(
    (name) =>
      new L2MintControllers(
        name,
        providers[name],
        config[`${envPrefix(name)}_L2_MINT_CONTROLLERS`],
        directory,
      ),
  );
}

/**
 * Readiness of a configured L2 controller: NotReady naming `<L2>_L2_MINT_CONTROLLERS` and the address when it does not
 * answer as an L2MintController (no contract there, another contract, a registry without a parent name); a node
 * that does not answer is reported as unreachable, not as a bad address.
 */
async function assertL2MintController(l2: L2MintControllers, controller: string): Promise<void> {
  try {
    await l2.parentOf(controller);
  } catch (err) {
    if (!isUpstreamError(err) || err.upstreamCode === 'UNREACHABLE' || err.upstreamCode === 'TIMEOUT')
      throw err;
    throw new NotReady(
      `${envPrefix(l2.network)}_L2_MINT_CONTROLLERS: ${controller} is not an L2 mint controller on ${l2.network} ` +
        `(${err.upstreamMessage})`,
    );
  }
}

/**
 * A readiness check per configured controller (`<network>-controller`, `<l2>-controller-<address>`): ready when the
 * node answers and the controller trusts this service's signer (and pays TREASURY_ADDRESS when it is set).
 */
export function controllerReadiness(
  ctx: Pick<MintContext, 'config' | 'networks' | 'l2' | 'signer'>,
): Record<string, () => Promise<unknown>> {
  const { config, signer } = ctx;
  const ready = (provider: Provider, controllerAddress: string) => async () => {
    const read = <T extends readonly unknown[]>(fn: 'signers' | 'treasury', args: unknown[]) =>
      readView<T>(provider, {
        to: controllerAddress,
        abi: mintControllerInterface,
        fn,
        args,
        context: `mint controller ${fn}`,
      });
    const [[trusted], [treasury]] = await Promise.all([
      read<[boolean]>('signers', [signer.address]),
      read<[string]>('treasury', []),
    ]);
    if (trusted !== true) throw new NotReady(`the controller does not trust signer ${signer.address}`);
    if (config.TREASURY_ADDRESS && treasury.toLowerCase() !== config.TREASURY_ADDRESS.toLowerCase()) {
      throw new NotReady(`the controller's treasury ${treasury} is not TREASURY_ADDRESS`);
    }
  };
  const readiness: Record<string, () => Promise<unknown>> = {};
  for (const [name, net] of Object.entries(ctx.networks)) {
    if (net.mintController) readiness[`${name}-controller`] = ready(net.provider, net.mintController);
  }
  for (const l2 of Object.values(ctx.l2)) {
    for (const controller of l2.controllers) {
      const trustsSigner = ready(l2.provider, controller);
      readiness[`${l2.network}-controller-${controller}`] = async () => {
        await assertL2MintController(l2, controller);
        await trustsSigner();
      };
    }
  }
  return readiness;
}
