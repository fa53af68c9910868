/**
 * L2Registry's storage layout is an interface: ProvenL2Resolver proves these slots of the registry on the L2
 * (its constants OWNERS_SLOT, REGISTRATIONS_SLOT, ADDRS_SLOT, TEXTS_SLOT, CONTENTHASHES_SLOT and
 * RECORD_VERSION_SHIFT). A change of the registry that moves one fails here before it breaks proven resolution.
 */
import { storageLayout } from '../scripts/solc';

describe('L2Registry storage layout (read by ProvenL2Resolver)', () => {
  const layout = storageLayout('l2/L2Registry.sol');
  const variable = (label: string) => layout.storage.find((entry) => entry.label === label);

  it.each([
    ['_owners', '2', 't_mapping(t_uint256,t_address)'],
    [
      '_registrations',
      '9',
      expect.stringMatching(/^t_mapping\(t_uint256,t_struct\(Registration\)\d+_storage\)$/),
    ],
    ['_addrs', '11', 't_mapping(t_bytes32,t_mapping(t_uint256,t_mapping(t_uint256,t_bytes_storage)))'],
    [
      '_texts',
      '12',
      't_mapping(t_bytes32,t_mapping(t_uint256,t_mapping(t_string_memory_ptr,t_string_storage)))',
    ],
    ['_contenthashes', '13', 't_mapping(t_bytes32,t_mapping(t_uint256,t_bytes_storage))'],
  ])('%s is at slot %s with its type', (label, slot, type) => {
    expect(variable(label)).toMatchObject({ slot, offset: 0, type });
  });

  it('packs expiry, fuses and record version in one registration slot (the version from bit 96)', () => {
    const struct = Object.entries(layout.types).find(([id]) => id.startsWith('t_struct(Registration)'))?.[1];
    expect(struct?.members?.map(({ label, slot, offset, type }) => ({ label, slot, offset, type }))).toEqual([
      { label: 'expiry', slot: '0', offset: 0, type: 't_uint64' },
      { label: 'fuses', slot: '0', offset: 8, type: 't_uint32' },
      { label: 'recordVersion', slot: '0', offset: 12, type: 't_uint64' },
    ]);
  });
});
