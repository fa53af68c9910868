import { InvalidAddressError } from './errors';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** ENS reverse name of an EVM address: '<lowercase hex without 0x>.addr.reverse'. */
export function reverseNodeName(address: string): string {
  if (!ADDRESS_RE.test(address)) throw new InvalidAddressError(60, address, 'expected 0x + 40 hex digits');
  return `${address.slice(2).toLowerCase()}.addr.reverse`;
}
