import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Contract, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { labelhash, namehash } from '@nrp/ens';
import type { DevStackHook } from '@nrp/testkit/src/dev-stack';
import { stableImageUrl } from '../src/uploads/stable-url';

/** A wrapped demo name, so `/metadata/network/11155111/token/{tokenId}` has something to show. */
export const DEV_WRAPPED_NAME = 'wrapped.eth';
const ONE_YEAR = 365 * 24 * 3600;

async function send(contract: Contract, fn: string, args: unknown[]): Promise<void> {
  const tx = await contract.getFunction(fn).send(...args);
  const receipt = await tx.wait();
  if (!receipt || receipt.status !== 1) throw new Error(`dev stack (metadata): ${fn} failed`);
}

/**
 * `npm start` for the metadata service: PGlite and blobs under `.data/metadata-svc`, its public URL, the sign-in
 * domains of the local front ends, the offchain service's URL, and `wrapped.eth` (anvil account 0) registered,
 * wrapped in the NameWrapper and pointed at its stable avatar URL, so an upload by account 0 is confirmed at once.
 */
export const prepareDevStack: DevStackHook = async (ctx) => {
  const dir = path.join(ctx.dataDir, 'metadata-svc');
  mkdirSync(path.join(dir, 'blobs'), { recursive: true });
  const base = ctx.services.metadata;
  const host = new URL(base).host;
  const [owner] = ctx.accounts;
  if (!owner) throw new Error('dev stack (metadata): anvil accounts missing');
  const provider = new JsonRpcProvider(ctx.rpcUrl, ctx.chainId, { staticNetwork: true });
  try {
    const signer = new NonceManager(new Wallet(owner.privateKey, provider));
    const c = ctx.contracts;
    const registrar = new Contract(
      c.baseRegistrar ?? '',
      [
        'function register(uint256 id, address owner, uint256 duration) returns (uint256)',
        'function setApprovalForAll(address operator, bool approved)',
      ],
      signer,
    );
    const wrapper = new Contract(
      c.nameWrapper ?? '',
      [
        'function wrapETH2LD(string label, address wrappedOwner, uint16 ownerControlledFuses, address resolver) returns (uint64)',
      ],
      signer,
    );
    const resolver = new Contract(
      c.publicResolver ?? '',
      ['function setText(bytes32 node, string key, string value)'],
      signer,
    );
    const label = DEV_WRAPPED_NAME.split('.')[0] ?? '';
    await send(registrar, 'register', [BigInt(labelhash(label)), owner.address, ONE_YEAR]);
    await send(registrar, 'setApprovalForAll', [c.nameWrapper, true]);
    await send(wrapper, 'wrapETH2LD', [label, owner.address, 0, c.publicResolver]);
    for (const kind of ['avatar', 'header'] as const) {
      await send(resolver, 'setText', [
        namehash(DEV_WRAPPED_NAME),
        kind,
        stableImageUrl(base, 'sepolia', DEV_WRAPPED_NAME, kind),
      ]);
    }
  } finally {
    provider.destroy();
  }
  return {
    env: {
      PGLITE_DATA_DIR: path.join(dir, 'db'),
      BLOB_DIR: path.join(dir, 'blobs'),
      PUBLIC_BASE_URL: base,
      SIWE_DOMAINS: [
        ...new Set([
          host,
          `localhost:${new URL(base).port}`,
          'localhost:3000',
          'localhost:5173',
          'localhost',
        ]),
      ].join(','),
      OFFCHAIN_URL: ctx.services.offchain,
    },
    names: { metadataWrapped: DEV_WRAPPED_NAME },
  };
};
