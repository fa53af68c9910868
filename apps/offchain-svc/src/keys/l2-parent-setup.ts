/**
 * The choice of an L2 parent (libs/contracts/README.md, "What is trusted: the signed resolver, and the proven one"):
 * its subnames live on one of our L2Registry contracts, and its L1 resolver is either an L2NameResolver (answers
 * signed by this service's gateway key) or a ProvenL2Resolver (answers proven from the L2's state on L1).
 */
import { ContractFactory, Interface, Wallet, getAddress, getCreateAddress } from 'ethers';
import type { L2ParentSetup, L2ResolverOption } from '@nrp/api';
import {
  callView,
  l2sSettlingOn,
  NoValue,
  toUpstreamError,
  type L2NetworkName,
  type NameControl,
  type NetworkName,
} from '@nrp/chain';
import { l2NameResolverArtifact, provenL2ResolverArtifact, type ContractArtifact } from '@nrp/contracts';
import { L2_NETWORK_CHAIN_IDS } from '@nrp/ens';
import type { OffchainContext } from '../context';
import { setResolverStep } from './set-resolver-step';

type SetupDeps = Pick<OffchainContext, 'config' | 'providers' | 'l2Networks' | 'l2ParentNames'>;

/** The L2 and registry of `parentName` among our registries on the L2s settling on `network`; null when none. */
export async function findL2Parent(
  ctx: Pick<OffchainContext, 'l2Networks' | 'l2ParentNames'>,
  network: NetworkName,
  parentName: string,
): Promise<{ network: L2NetworkName; registry: string } | null> {
  for (const l2 of l2sSettlingOn(network)) {
    for (const registry of ctx.l2Networks[l2].registries) {
      // Sequential: parent names are read once per process, and the matching registry ends the search.
      if ((await ctx.l2ParentNames.parentName(l2, registry)) === parentName) {
        return { network: l2, registry: getAddress(registry) };
      }
    }
  }
  return null;
}

const l2ResolverInterface = new Interface([
  'function l2Registry() view returns (address)',
  'function verifier() view returns (address)',
]);

/** Which of the two resolvers of `registry` `resolver` is (by its `l2Registry()` and `verifier()`), or null. */
async function kindOf(
  deps: SetupDeps,
  network: NetworkName,
  resolver: string | null,
  registry: string,
): Promise<L2ResolverOption['kind'] | null> {
  if (!resolver) return null;
  const provider = deps.providers[network];
  const read = (fn: string) =>
    callView<[string]>(provider, {
      to: resolver,
      abi: l2ResolverInterface,
      fn,
      context: `${fn} of ${resolver}`,
    });
  const served = await read('l2Registry');
  if (served instanceof NoValue || getAddress(served[0]) !== registry) return null;
  return (await read('verifier')) instanceof NoValue ? 'signed' : 'proven';
}

/** The contract each kind deploys. */
const RESOLVERS: Record<
  L2ResolverOption['kind'],
  { contract: L2ResolverOption['contract']; artifact: ContractArtifact }
> = {
  signed: { contract: 'L2NameResolver', artifact: l2NameResolverArtifact },
  proven: { contract: 'ProvenL2Resolver', artifact: provenL2ResolverArtifact },
};

interface Candidate {
  kind: L2ResolverOption['kind'];
  args: readonly unknown[];
  gatewayUrl: string;
  trust: string;
}

/** The resolvers this service can offer for a parent on `l2`: signed with a gateway key, proven with a verifier. */
function candidates(config: OffchainContext['config'], l2: L2NetworkName, registry: string): Candidate[] {
  const chainId = L2_NETWORK_CHAIN_IDS[l2];
  const offered: Candidate[] = [];
  if (config.GATEWAY_SIGNER_KEY) {
    const signer = new Wallet(config.GATEWAY_SIGNER_KEY).address;
    const gatewayUrl = `${config.PUBLIC_BASE_URL}/api/v1/gateway/l2/${l2}/${registry}/{sender}/{data}.json`;
    offered.push({
      kind: 'signed',
      args: [gatewayUrl, [signer], chainId, registry],
      gatewayUrl,
      trust:
        `Trusts this service's gateway signer ${signer}: the resolver accepts whatever it signs for ` +
        `${config.GATEWAY_TTL_SECONDS} s, so a leaked key or a gateway reading a lying ${l2} node could give any ` +
        'subname any record, and the names stop resolving if this gateway stops. Answers are as fresh as the L2 ' +
        '(seconds).',
    });
  }
  const verifier = l2 === 'base' ? config.BASE_PROOF_VERIFIER : config.BASE_SEPOLIA_PROOF_VERIFIER;
  if (verifier) {
    const gatewayUrl = `${config.PUBLIC_BASE_URL}/api/v1/proofs/${l2}`;
    offered.push({
      kind: 'proven',
      args: [getAddress(verifier), chainId, registry, [gatewayUrl]],
      gatewayUrl,
      trust:
        `Trusts nothing of ours: the resolver checks Merkle-Patricia proofs of the registry's storage against the ` +
        `state root ${l2}'s rollup posted on L1 (verifier ${getAddress(verifier)}); anyone can run the prover ` +
        "(npm run prover) and point the resolver at it (setGatewayUrls). Answers lag the L2 by the rollup's " +
        "posting interval plus the verifier's window (on Base about two hours: games at least an hour old, " +
        'proposed about hourly).',
    });
  }
  return offered;
}

/**
 * The L2 part of a parent's setup: each resolver it may use, what it trusts, whether it is the one set, and the
 * controller's transactions to switch to it — the deployment, then `setResolver` (registry or NameWrapper) to the
 * address the deployment gets when it is the controller's next transaction.
 */
export async function l2ParentSetup(
  deps: SetupDeps,
  network: NetworkName,
  parentName: string,
  parent: { network: L2NetworkName; registry: string },
  control: NameControl,
  resolver: string | null,
): Promise<L2ParentSetup> {
  const provider = deps.providers[network];
  const { controller } = control;
  const chosen = await kindOf(deps, network, resolver, parent.registry);
  const nonce = controller
    ? await provider.getTransactionCount(controller, 'pending').catch((err: unknown) => {
        throw toUpstreamError(`nonce of ${controller}`, err);
      })
    : 0;
  const options = await Promise.all(
    candidates(deps.config, parent.network, parent.registry).map(async (offer): Promise<L2ResolverOption> => {
      const { contract, artifact } = RESOLVERS[offer.kind];
      const steps: L2ResolverOption['steps'] = [];
      if (offer.kind !== chosen && controller) {
        const factory = new ContractFactory(artifact.abi, artifact.bytecode);
        const { data } = await factory.getDeployTransaction(...offer.args);
        const deployed = getCreateAddress({ from: controller, nonce });
        steps.push(
          {
            description:
              `Deploy a ${contract} for ${parentName} (${parent.registry} on ${parent.network}), ` +
              `sent by ${controller} as its next transaction (nonce ${nonce}): it gets ${deployed}.`,
            to: null,
            data,
            value: '0',
            contractAddress: deployed,
          },
          {
            ...setResolverStep(
              provider.config.ens,
              { ...control, controller },
              parentName,
              deployed,
              `it (if the deployment was not the controller's next transaction, the address in its receipt)`,
            ),
            contractAddress: null,
          },
        );
      }
      return {
        kind: offer.kind,
        contract,
        trust: offer.trust,
        gatewayUrl: offer.gatewayUrl,
        chosen: offer.kind === chosen,
        steps,
      };
    }),
  );
  return { network: parent.network, registry: parent.registry, options };
}
