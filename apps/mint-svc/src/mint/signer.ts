import { Wallet } from 'ethers';
import { ConfigError } from '@nrp/server';

const SIGNER_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The signing wallet of SIGNER_PRIVATE_KEY, or a ConfigError that never echoes the key. */
export function signerFromConfig(key: string | undefined): Wallet {
  if (!key)
    throw new ConfigError(
      'SIGNER_PRIVATE_KEY: required (0x + 64 hex digits); the service does not start without it',
    );
  if (!SIGNER_KEY.test(key)) {
    throw new ConfigError('SIGNER_PRIVATE_KEY: must be 0x followed by 64 hex digits (value not shown)');
  }
  try {
    return new Wallet(key);
  } catch {
    throw new ConfigError('SIGNER_PRIVATE_KEY: not a valid secp256k1 private key (value not shown)');
  }
}
