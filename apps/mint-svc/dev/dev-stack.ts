import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Contract, Interface, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import {
  deployContract,
  deployMintController,
  l2MintControllerArtifact,
  l2RegistryArtifact,
} from '@nrp/contracts';
import { labelhash, namehash } from '@nrp/ens';
import { DEV_L2_PARENT, DEV_PROVEN_L2_PARENT, type DevStackHook } from '@nrp/testkit/src/dev-stack';

const ONE_YEAR = 365 * 24 * 3600;
export const DEV_MINT_PARENT = 'mint.eth';
/** Minted on the L2 through this service once the stack runs, so an L2 subname resolves from the start. */
export const DEV_L2_SUBNAME = `demo.${DEV_L2_PARENT}`;
/** The same under the proven parent: it resolves through storage proofs once the next root is posted. */
export const DEV_PROVEN_L2_SUBNAME = `demo.${DEV_PROVEN_L2_PARENT}`;

/**
 * The L2 controller of the stack's L2Registry (same signer and treasury as on L1), made a controller there by the
 * registry's owner (anvil account 0); `deployedAt` is where the names index starts on the L2.
 */
async function deployL2MintController(
  rpcUrl: string,
  registry: string,
  keys: { owner: string; treasury: string; signer: string },
): Promise<{ controller: string; deployedAt: number }> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  try {
    const wallet = new NonceManager(new Wallet(keys.owner, provider));
    const deployed = await deployContract(wallet, l2MintControllerArtifact, [
      registry,
      keys.treasury,
      keys.signer,
      await wallet.getAddress(),
    ]);
    const controller = await deployed.getAddress();
    const deployedAt = await provider.getBlockNumber();
    const tx = await new Contract(registry, l2RegistryArtifact.abi, wallet)
      .getFunction('setController')
      .send(controller, true);
    await tx.wait();
    return { controller, deployedAt };
  } finally {
    provider.destroy();
  }
}

/**
 * `name` (`demo.l2.eth`, `demo.proven.eth`) for anvil account 0, minted as a wallet does: the service signs, the
 * owner sends `mint` to the L2 controller with its address and a description as records.
 */
async function mintDemoL2Subname(
  name: string,
  mintUrl: string,
  l2RpcUrl: string,
  ownerKey: string,
): Promise<void> {
  const provider = new JsonRpcProvider(l2RpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  try {
    const owner = new Wallet(ownerKey, provider);
    const [label = '', ...parent] = name.split('.');
    const res = await fetch(`${mintUrl}/api/v1/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        parentName: parent.join('.'),
        label,
        minterAddress: owner.address,
        network: 'base-sepolia',
      }),
    });
    if (!res.ok) throw new Error(`mint-svc dev stack: POST /api/v1/mint answered ${res.status}`);
    const answer = (await res.json()) as {
      content: Record<string, string | number>;
      signature: string;
      mintController: string;
    };
    const node = namehash(name);
    const registry = new Interface(l2RegistryArtifact.abi);
    const records = [
      registry.encodeFunctionData('setAddr(bytes32,address)', [node, owner.address]),
      registry.encodeFunctionData('setText', [
        node,
        'description',
        'The demo subname on the L2 (Base Sepolia)',
      ]),
    ];
    const price = BigInt(answer.content.price ?? 0);
    const fee = BigInt(answer.content.fee ?? 0);
    const tx = await new Contract(answer.mintController, l2MintControllerArtifact.abi, owner)
      .getFunction('mint')
      .send({ ...answer.content, price, fee }, answer.signature, records, '0x', { value: price + fee });
    const receipt = await tx.wait();
    if (receipt?.status !== 1) throw new Error(`mint-svc dev stack: the mint of ${name} failed`);
  } finally {
    provider.destroy();
  }
}

/**
 * What `npm start` adds for this service: a MintController (owner and payment receiver: anvil account 0,
 * signer: anvil account 8's key, treasury: anvil account 9), `mint.eth` registered to account 0 with the public
 * resolver and the controller approved in the registry, and an operator listing of `mint.eth` on sepolia for
 * anyone (0.001 ETH a year, 0.01 ETH for 1-3 characters, standard fee 0.0001 ETH) in a LISTINGS_FILE. The names
 * index follows the dev chain from the controller's deployment block with no confirmations. On the L2 (Base
 * Sepolia): an L2MintController for each of the stack's L2Registries (`l2.eth`, `proven.eth`), both listed the same
 * way on `base-sepolia`, and `demo.l2.eth` and `demo.proven.eth` minted through this service once it runs.
 */
export const prepareDevStack: DevStackHook = async (ctx) => {
  const [owner, , , , , , , , signer, treasury] = ctx.accounts;
  if (!owner || !signer || !treasury)
    throw new Error('mint-svc dev stack: anvil accounts 0, 8 and 9 are needed');
  const need = (name: string): string => {
    const address = ctx.contracts[name];
    if (!address)
      throw new Error(`mint-svc dev stack: contract ${name} is missing from the dev stack context`);
    return address;
  };
  const provider = new JsonRpcProvider(ctx.rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  try {
    const wallet = new NonceManager(new Wallet(owner.privateKey, provider));
    const send = async (contract: Contract, fn: string, args: unknown[]) => {
      const tx = await (contract.connect(wallet) as Contract).getFunction(fn).send(...args);
      await tx.wait();
    };
    const registrar = new Contract(need('baseRegistrar'), [
      'function register(uint256 id, address owner, uint256 duration) returns (uint256)',
    ]);
    const registry = new Contract(need('ensRegistry'), [
      'function setResolver(bytes32 node, address resolver)',
      'function setApprovalForAll(address operator, bool approved)',
    ]);
    await send(registrar, 'register', [BigInt(labelhash('mint')), owner.address, ONE_YEAR]);
    await send(registry, 'setResolver', [namehash(DEV_MINT_PARENT), need('publicResolver')]);
    const controller = await deployMintController(wallet, {
      registry: need('ensRegistry'),
      nameWrapper: need('nameWrapper'),
      resolver: need('publicResolver'),
      treasury: treasury.address,
      signer: new Wallet(signer.privateKey).address,
      owner: owner.address,
    });
    const controllerAddress = await controller.getAddress();
    // The names index starts at the controller's deployment (mined by now): nothing before it can be ours.
    const deployedAt = await provider.getBlockNumber();
    await send(registry, 'setApprovalForAll', [controllerAddress, true]);

    const l2Keys = {
      owner: owner.privateKey,
      treasury: treasury.address,
      signer: new Wallet(signer.privateKey).address,
    };
    const l2 = await deployL2MintController(ctx.l2.rpcUrl, need('l2Registry'), l2Keys);
    const provenL2 = await deployL2MintController(ctx.l2.rpcUrl, need('provenL2Registry'), l2Keys);

    const dir = path.join(ctx.dataDir, 'mint-svc');
    mkdirSync(dir, { recursive: true });
    const listingsFile = path.join(dir, 'listings.json');
    const listing = {
      basePriceWei: '1000000000000000',
      lengthPrices: [1, 2, 3].map((length) => ({ length, priceWei: '10000000000000000' })),
      fee: { type: 'standard' },
      paymentReceiver: owner.address,
      reservedLabels: ['admin', 'www'],
    };
    const listings = [
      { network: ctx.network, parentName: DEV_MINT_PARENT, listing },
      { network: ctx.l2.network, parentName: DEV_L2_PARENT, listing },
      { network: ctx.l2.network, parentName: DEV_PROVEN_L2_PARENT, listing },
    ];
    writeFileSync(listingsFile, `${JSON.stringify(listings, null, 2)}\n`);

    return {
      env: {
        PGLITE_DATA_DIR: path.join(dir, 'pglite'),
        SIGNER_PRIVATE_KEY: signer.privateKey,
        TREASURY_ADDRESS: treasury.address,
        SEPOLIA_MINT_CONTROLLER: controllerAddress,
        SEPOLIA_BASE_REGISTRAR: need('baseRegistrar'),
        STANDARD_FEE_WEI: '100000000000000',
        LISTINGS_FILE: listingsFile,
        // Bound sign-in messages name listing URLs under the URL the stack serves mint-svc at.
        PUBLIC_BASE_URL: ctx.services.mint,
        SIWE_DOMAINS: 'localhost:3002,127.0.0.1:3002,localhost,localhost:3000',
        // mint.signed events are relayed to offchain-svc (EVENTS_INGEST_TOKEN comes from the stack).
        OFFCHAIN_URL: ctx.services.offchain,
        // The names index follows the dev chain at once (anvil does not reorganise on its own) and every second.
        INDEX_CONFIRMATIONS: '0',
        INDEX_INTERVAL_MS: '1000',
        SEPOLIA_INDEX_START_BLOCK: String(deployedAt),
        BASE_SEPOLIA_L2_MINT_CONTROLLERS: `${l2.controller},${provenL2.controller}`,
        BASE_SEPOLIA_INDEX_START_BLOCK: String(l2.deployedAt),
      },
      contracts: {
        mintController: controllerAddress,
        l2MintController: l2.controller,
        provenL2MintController: provenL2.controller,
      },
      names: {
        mintParent: DEV_MINT_PARENT,
        l2Subname: DEV_L2_SUBNAME,
        provenL2Subname: DEV_PROVEN_L2_SUBNAME,
      },
      afterStart: async () => {
        for (const name of [DEV_L2_SUBNAME, DEV_PROVEN_L2_SUBNAME])
          await mintDemoL2Subname(name, ctx.services.mint, ctx.l2.rpcUrl, owner.privateKey);
      },
    };
  } finally {
    provider.destroy();
  }
};
