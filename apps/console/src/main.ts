/**
 * The console image's entry: serves `public/` beside this file on PORT (default 3000) with the service URLs of
 * OFFCHAIN_URL, MINT_URL, METADATA_URL, RESOLVER_URL and the NETWORK (mainnet or sepolia). SIGTERM closes it.
 */
import path from 'node:path';
import { NETWORK_NAMES } from '@nrp/ens';
import type { ConsoleConfig } from './config';
import { createConsoleServer } from './server';

function required(name: string): string {
  const value = process.env[name];
  if (!value || !URL.canParse(value)) {
    console.error(`Invalid configuration: ${name} must be a URL (got ${value ?? 'nothing'})`);
    process.exit(1);
  }
  return value;
}

const wanted = process.env.NETWORK ?? 'mainnet';
const network = NETWORK_NAMES.find((name) => name === wanted);
if (!network) {
  console.error(`Invalid configuration: NETWORK must be ${NETWORK_NAMES.join(' or ')} (got ${wanted})`);
  process.exit(1);
}
const config: ConsoleConfig = {
  network,
  services: {
    offchain: required('OFFCHAIN_URL'),
    mint: required('MINT_URL'),
    metadata: required('METADATA_URL'),
    resolver: required('RESOLVER_URL'),
  },
};
const server = createConsoleServer(path.join(__dirname, 'public'), config);
server.listen(Number(process.env.PORT ?? 3000));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
