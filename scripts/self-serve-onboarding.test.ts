/**
 * A name owner onboards alone on `npm start`'s chain, with the typed client and viem as a frontend would: account 2
 * gets `team.demo.eth`, signs in, sends the setup transactions, issues a key, creates `alice.team.demo.eth`, which
 * viem (unchanged) and resolver-svc resolve; once the name moves to account 3 the old key is refused and account 3
 * takes over.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  labelhash,
  namehash,
  parseAbi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { getEnsAddress, getEnsResolver, getEnsText } from 'viem/actions';
import { createOffchainClient, sessionSignInMessage, ServiceError, type OffchainClient } from '@nrp/client';
import { startDevStackProcess, until, type DevStackFile, type DevStackProcess } from '@nrp/testkit';

const REGISTRY_ABI = parseAbi([
  'function setSubnodeOwner(bytes32 node, bytes32 label, address owner) returns (bytes32)',
  'function setOwner(bytes32 node, address owner)',
]);

describe('a name owner onboards alone (npm start)', () => {
  let devStack: DevStackProcess;
  let stack: DevStackFile;
  let chain: Chain;
  let viem: PublicClient;
  let offchain: OffchainClient;

  async function send(
    account: PrivateKeyAccount,
    tx: { to: Address; data: Hex; value?: bigint },
  ): Promise<void> {
    const wallet = createWalletClient({ account, chain, transport: http(stack.chains.sepolia.rpcUrl) });
    const hash = await wallet.sendTransaction(tx);
    const receipt = await viem.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
  }

  async function signIn(account: PrivateKeyAccount): Promise<string> {
    const { nonce } = await offchain.requestSessionNonce(account.address);
    const siweMessage = sessionSignInMessage({
      serviceUrl: stack.services.offchain,
      domain: 'localhost:3000',
      address: account.address,
      nonce,
      network: 'sepolia',
    });
    const session = await offchain.signIn({
      siweMessage,
      siweSignature: await account.signMessage({ message: siweMessage }),
      address: account.address,
    });
    expect(session.address).toBe(account.address);
    return session.token;
  }

  beforeAll(async () => {
    // A short control cache, so that the test sees the key refused without waiting the default 30 s.
    devStack = await startDevStackProcess(() => ({ NAME_CONTROL_CACHE_MS: '500' }));
    stack = devStack.stack;
    chain = defineChain({
      id: stack.chains.sepolia.chainId,
      name: 'npm start',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [stack.chains.sepolia.rpcUrl] } },
      contracts: {
        ensUniversalResolver: { address: stack.contracts.universalResolver as Address },
        multicall3: { address: stack.contracts.multicall3 as Address },
      },
    });
    viem = createPublicClient({ chain, transport: http(stack.chains.sepolia.rpcUrl) });
    offchain = createOffchainClient({ baseUrl: stack.services.offchain });
  }, 180_000);

  afterAll(async () => {
    await devStack?.stop();
  });

  it('sign in, set up, issue a key, resolve; the key follows the name to its next controller', async () => {
    const [deployer, , second, third, fourth] = stack.accounts.map((a) =>
      privateKeyToAccount(a.privateKey as Hex),
    );
    if (!deployer || !second || !third || !fourth) throw new Error('accounts');
    const registry = stack.contracts.ensRegistry as Address;

    // demo.eth's owner (account 0) gives team.demo.eth to account 2.
    await send(deployer, {
      to: registry,
      data: encodeFunctionData({
        abi: REGISTRY_ABI,
        functionName: 'setSubnodeOwner',
        args: [namehash('demo.eth'), labelhash('team'), second.address],
      }),
    });

    const token = await signIn(second);
    const setup = await offchain.parentSetup('team.demo.eth', 'sepolia');
    expect(setup).toMatchObject({
      parentName: 'team.demo.eth',
      controller: second.address,
      wrapped: false,
      resolverIsOurs: false,
      ready: false,
    });
    for (const step of setup.steps) {
      await send(second, { to: step.to as Address, data: step.data as Hex, value: BigInt(step.value) });
    }
    expect(await offchain.parentSetup('team.demo.eth', 'sepolia')).toMatchObject({ ready: true, steps: [] });

    const created = await offchain.createKey({ parentName: 'team.demo.eth', network: 'sepolia' }, token);
    expect(await offchain.listKeys(token)).toEqual([
      expect.objectContaining({ id: created.id, parentName: 'team.demo.eth', lastUsedAt: null }),
    ]);
    await offchain.createOrUpdateSubname(
      {
        parentName: 'team.demo.eth',
        label: 'alice',
        addresses: [{ coin: 60, value: fourth.address }],
        texts: [{ key: 'description', value: 'Alice of the team' }],
      },
      created.key,
    );

    // viem, unchanged: ENSIP-10 wildcard + CCIP-Read through our resolver and this service's gateway.
    const name = 'alice.team.demo.eth';
    expect(await getEnsResolver(viem, { name })).toBe(stack.contracts.offchainResolver);
    expect(await getEnsAddress(viem, { name })).toBe(fourth.address);
    expect(await getEnsText(viem, { name, key: 'description' })).toBe('Alice of the team');
    const res = await fetch(
      `${stack.services.resolver}/ens/v2/profile/${name}?network=sepolia&texts=description&addresses=eth&noCache=true`,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name,
      texts: [{ key: 'description', exists: true, value: 'Alice of the team' }],
      addresses: [{ chain: 'eth', exists: true, value: fourth.address }],
    });

    // team.demo.eth moves to account 3: account 2's key stops within the control cache's life.
    await send(second, {
      to: registry,
      data: encodeFunctionData({
        abi: REGISTRY_ABI,
        functionName: 'setOwner',
        args: [namehash('team.demo.eth'), third.address],
      }),
    });
    let refusal: unknown;
    await until(
      async () => {
        refusal = await offchain
          .createOrUpdateSubname({ parentName: 'team.demo.eth', label: 'late' }, created.key)
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        return refusal instanceof ServiceError;
      },
      'the old key refused',
      60_000,
    );
    expect(refusal).toMatchObject({ status: 401, code: 'KEY_OWNER_CHANGED' });
    await expect(
      offchain.createKey({ parentName: 'team.demo.eth', network: 'sepolia' }, token),
    ).rejects.toMatchObject({ status: 403, code: 'NOT_NAME_MANAGER' });

    // Account 3 takes over; what was written stays.
    const thirdToken = await signIn(third);
    const taken = await offchain.createKey(
      { parentName: 'team.demo.eth', network: 'sepolia', includeDescendants: true },
      thirdToken,
    );
    await offchain.createOrUpdateSubname({ parentName: 'team.demo.eth', label: 'bob' }, taken.key);
    await offchain.createOrUpdateSubname({ parentName: 'deep.team.demo.eth', label: 'carol' }, taken.key);
    expect((await offchain.getSubname(name)).addresses).toEqual({ '60': fourth.address });
    expect(await getEnsAddress(viem, { name })).toBe(fourth.address);
    await offchain.revokeKey(taken.id, thirdToken);
    await offchain.signOut(thirdToken);
    await expect(offchain.listKeys(thirdToken)).rejects.toMatchObject({ status: 401 });
  }, 120_000);
});
