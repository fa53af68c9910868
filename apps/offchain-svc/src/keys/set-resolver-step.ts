import { getAddress } from 'ethers';
import type { SetupStep } from '@nrp/api';
import { ensRegistryInterface, nameWrapperInterface, type EnsAddresses, type NameControl } from '@nrp/chain';
import { namehash } from '@nrp/ens';

/**
 * The controller's `setResolver(node, resolver)` for `parentName`: on the ENS registry, or on the NameWrapper for a
 * wrapped name. `why` ends the description (what the resolver is).
 */
export function setResolverStep(
  ens: Pick<EnsAddresses, 'ensRegistry' | 'nameWrapper'>,
  control: NameControl & { controller: string },
  parentName: string,
  resolver: string,
  why: string,
): SetupStep {
  const contract = control.wrapped ? 'NameWrapper' : 'ENS registry';
  return {
    description: `Set the resolver of ${parentName} to ${why}: ${contract}.setResolver, sent by ${control.controller}.`,
    to: getAddress(control.wrapped ? ens.nameWrapper : ens.ensRegistry),
    data: (control.wrapped ? nameWrapperInterface : ensRegistryInterface).encodeFunctionData('setResolver', [
      namehash(parentName),
      resolver,
    ]),
    value: '0',
  };
}
