/**
 * Subnames on an L2 (L2Registry + L2MintController) and their L1 resolver (L2NameResolver) on anvil, driven with viem.
 * Mints carry a real EIP-712 signature made the way mint-svc makes it (MINT_CONTEXT_TYPES, mintEip712Domain);
 * gateway answers are signed with @nrp/chain's offchain signing (the one path SignedOffchainResolver verifies too).
 * One anvil (chain id 84532, Base Sepolia) carries all three contracts (the L1 resolver needs no L2 state on chain);
 * a second one, with ENS and our UniversalResolver, shows viem reading an L2 name from L1 through the test gateway.
 */
import {
  BaseError,
  createPublicClient,
  decodeAbiParameters,
  decodeErrorResult,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  http,
  keccak256,
  stringToHex,
  parseAbi,
  parseEther,
  parseEventLogs,
  zeroAddress,
  toFunctionSelector,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { getEnsAddress, getEnsText } from 'viem/actions';
import { Wallet, type BaseWallet } from 'ethers';
import { signOffchainResolverResponse } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import {
  L2_CHAIN_ID,
  LOCAL_BATCH_GATEWAY,
  l2MintControllerAbi,
  l2RegistryAbi,
  revertOf,
  startEnsChain,
  startL2Chain,
  startTestGateway,
  type ContractRevert,
  type EnsChain,
  type L2Chain,
  type TestGateway,
} from '@nrp/testkit';
import {
  L2_PARENT_CANNOT_CONTROL,
  deployContract,
  universalResolverArtifact,
  MINT_CONTEXT_TYPES,
  l2NameResolverArtifact,
  mintEip712Domain,
  type MintContext,
} from '../src';

const PARENT = 'l2.eth';
const BASE_COIN_TYPE = 0x80000000n | 8453n;
const CAROL_ADDR: Address = '0x00000000000000000000000000000000000000c0';
const GATEWAY_URL = 'https://gateway.test/l2/{sender}/{data}.json';
const resolverAbi = l2NameResolverArtifact.abi as Abi;
const recordsAbi = parseAbi([
  'function addr(bytes32 node) view returns (address)',
  'function text(bytes32 node, string key) view returns (string)',
  'function multicall(bytes[] data) returns (bytes[] results)',
]);

describe('L2 subnames', () => {
  let l2: L2Chain;
  let client: PublicClient;
  let deployer: PrivateKeyAccount;
  let alice: PrivateKeyAccount;
  let bob: PrivateKeyAccount;
  let minter: PrivateKeyAccount;
  let receiver: PrivateKeyAccount;
  let treasury: PrivateKeyAccount;
  let serviceKey: BaseWallet;
  let gatewayKey: BaseWallet;
  let registry: Address;
  let controller: Address;
  let resolver: Address;

  const read = (
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
  ): Promise<unknown> => client.readContract({ address, abi, functionName, args });

  async function mintParams(
    label: string,
    owner: Address,
    extra: Partial<MintContext> = {},
  ): Promise<MintContext> {
    return {
      owner,
      label,
      parentNode: namehash(PARENT),
      price: parseEther('0.001'),
      fee: parseEther('0.0001'),
      paymentReceiver: receiver.address,
      expiry: (await l2.now()) + 365n * 86400n,
      signatureExpiry: (await l2.now()) + 600n,
      verifiedMinter: minter.address,
      fuses: 0,
      ...extra,
    };
  }

  const sign = (ctx: MintContext, key: BaseWallet = serviceKey): Promise<string> =>
    key.signTypedData(mintEip712Domain(L2_CHAIN_ID, controller), MINT_CONTEXT_TYPES, { ...ctx });

  const mintArgs = (ctx: MintContext, sig: string, records: Hex[] = []): readonly unknown[] => [
    ctx,
    sig,
    records,
    '0x',
  ];

  const mint = (ctx: MintContext, sig: string, records: Hex[] = []): Promise<unknown> =>
    l2.send(
      minter,
      controller,
      l2MintControllerAbi,
      'mint',
      mintArgs(ctx, sig, records),
      ctx.price + ctx.fee,
    );

  const setText = (node: Hex, key: string, value: string): Hex =>
    encodeFunctionData({ abi: l2RegistryAbi, functionName: 'setText', args: [node, key, value] });

  const text = (node: Hex, key: string): Promise<unknown> =>
    read(registry, l2RegistryAbi, 'text', [node, key]);

  beforeAll(async () => {
    l2 = await startL2Chain();
    client = l2.client;
    [deployer, alice, bob, minter, receiver, treasury] = [
      l2.account(0),
      l2.account(1),
      l2.account(2),
      l2.account(3),
      l2.account(4),
      l2.account(5),
    ];
    serviceKey = Wallet.createRandom();
    gatewayKey = Wallet.createRandom();
    registry = await l2.deployRegistry(PARENT);
    controller = await l2.deployMintController(registry, treasury.address, serviceKey.address);
    await l2.setController(registry, controller);
    resolver = await l2.deploy(l2NameResolverArtifact, [
      GATEWAY_URL,
      [gatewayKey.address],
      L2_CHAIN_ID,
      registry,
    ]);
  });

  afterAll(async () => {
    await l2?.stop();
  });

  describe('L2MintController + L2Registry', () => {
    const node = namehash(`carol.${PARENT}`);

    it('mints an ERC-721 token (id = namehash) with its records for a signed MintContext, paying price and fee', async () => {
      const ctx = await mintParams('carol', alice.address);
      const receiverBefore = await client.getBalance({ address: receiver.address });
      const treasuryBefore = await client.getBalance({ address: treasury.address });
      const records = [
        encodeFunctionData({ abi: l2RegistryAbi, functionName: 'setAddr', args: [node, alice.address] }),
        encodeFunctionData({
          abi: l2RegistryAbi,
          functionName: 'setAddr',
          args: [node, BASE_COIN_TYPE, bob.address.toLowerCase()],
        }),
        setText(node, 'description', 'carol on base'),
        encodeFunctionData({
          abi: l2RegistryAbi,
          functionName: 'setContenthash',
          args: [node, '0xe301017012'],
        }),
      ];
      const receipt = (await mint(ctx, await sign(ctx), records)) as TransactionReceipt;

      // Registered straight to its holder: one Transfer, from nobody to alice, none through the controller.
      const transfers = parseEventLogs({ abi: l2RegistryAbi, logs: receipt.logs, eventName: 'Transfer' });
      expect(transfers.map((log) => log.args)).toEqual([
        { from: zeroAddress, to: alice.address, tokenId: BigInt(node) },
      ]);
      expect(await read(registry, l2RegistryAbi, 'ownerOf', [BigInt(node)])).toBe(alice.address);
      expect(await read(registry, l2RegistryAbi, 'owner', [node])).toBe(alice.address);
      expect(await read(registry, l2RegistryAbi, 'expiries', [BigInt(node)])).toBe(ctx.expiry);
      expect(await read(registry, l2RegistryAbi, 'addr', [node])).toBe(alice.address);
      expect(await read(registry, l2RegistryAbi, 'addr', [node, BASE_COIN_TYPE])).toBe(
        bob.address.toLowerCase(),
      );
      expect(await text(node, 'description')).toBe('carol on base');
      expect(await read(registry, l2RegistryAbi, 'contenthash', [node])).toBe('0xe301017012');
      expect(await read(controller, l2MintControllerAbi, 'subnameExists', [namehash(PARENT), 'carol'])).toBe(
        true,
      );
      expect((await client.getBalance({ address: receiver.address })) - receiverBefore).toBe(ctx.price);
      expect((await client.getBalance({ address: treasury.address })) - treasuryBefore).toBe(ctx.fee);
    });

    it('refuses a label already taken with NameAlreadyExists(node), even with a fresh valid signature', async () => {
      const ctx = await mintParams('carol', bob.address);
      const err = await revertOf(
        client.simulateContract({
          account: minter,
          address: controller,
          abi: l2MintControllerAbi,
          functionName: 'mint',
          args: mintArgs(ctx, await sign(ctx)),
          value: ctx.price + ctx.fee,
        }),
      );
      expect(err).toEqual({ name: 'NameAlreadyExists', args: [node] });
    });

    it('refuses an expired signature, a signer it does not trust, a replay and another parent', async () => {
      const simulate = async (ctx: MintContext, sig: string): Promise<ContractRevert> =>
        revertOf(
          client.simulateContract({
            account: minter,
            address: controller,
            abi: l2MintControllerAbi,
            functionName: 'mint',
            args: mintArgs(ctx, sig),
            value: ctx.price + ctx.fee,
          }),
        );
      const expired = await mintParams('dave', alice.address, { signatureExpiry: (await l2.now()) - 1n });
      expect(await simulate(expired, await sign(expired))).toEqual({
        name: 'SignatureExpired',
        args: [expired.signatureExpiry],
      });
      const dave = await mintParams('dave', alice.address);
      expect((await simulate(dave, await sign(dave, Wallet.createRandom()))).name).toBe('InvalidSignature');
      // the signature covers every member: another price under the same signature is another digest
      expect((await simulate({ ...dave, price: 0n }, await sign(dave))).name).toBe('InvalidSignature');
      const other = await mintParams('dave', alice.address, { parentNode: namehash('other.eth') });
      expect(await simulate(other, await sign(other))).toEqual({
        name: 'WrongParent',
        args: [namehash('other.eth'), namehash(PARENT)],
      });
      const sig = await sign(dave);
      await mint(dave, sig);
      expect((await simulate(dave, sig)).name).toBe('SignatureAlreadyUsed');
    });

    it('lets only the holder or its approved operator set records, and a transfer hands that right over', async () => {
      const setTextAs = (account: PrivateKeyAccount, value: string): Promise<unknown> =>
        l2.send(account, registry, l2RegistryAbi, 'setText', [node, 'url', value]);
      expect(await revertOf(setTextAs(bob, 'https://bob.example'))).toEqual({
        name: 'NotAuthorised',
        args: [node, bob.address],
      });
      await setTextAs(alice, 'https://alice.example');
      expect(await text(node, 'url')).toBe('https://alice.example');

      await l2.send(alice, registry, l2RegistryAbi, 'setApprovalForAll', [minter.address, true]);
      await l2.send(minter, registry, l2RegistryAbi, 'setText', [node, 'url', 'https://operator.example']);
      expect(await text(node, 'url')).toBe('https://operator.example');

      await l2.send(alice, registry, l2RegistryAbi, 'transferFrom', [
        alice.address,
        bob.address,
        BigInt(node),
      ]);
      expect(await read(registry, l2RegistryAbi, 'ownerOf', [BigInt(node)])).toBe(bob.address);
      expect((await revertOf(setTextAs(alice, 'https://alice.example'))).name).toBe('NotAuthorised');
      expect(
        (await revertOf(l2.send(minter, registry, l2RegistryAbi, 'setText', [node, 'url', 'x']))).name,
      ).toBe('NotAuthorised');
      await setTextAs(bob, 'https://bob.example');
      expect(await text(node, 'url')).toBe('https://bob.example');
      // records stay with the name, not the holder
      expect(await text(node, 'description')).toBe('carol on base');
    });

    it('lets a controller set the records of the name it registers only in the registering transaction', async () => {
      await l2.setController(registry, deployer.address);
      await l2.register(registry, 'grace', bob.address, (await l2.now()) + 86400n);
      const grace = namehash(`grace.${PARENT}`);
      expect(
        await revertOf(l2.send(deployer, registry, l2RegistryAbi, 'setText', [grace, 'url', 'x'])),
      ).toEqual({
        name: 'NotAuthorised',
        args: [grace, deployer.address],
      });
      await l2.setController(registry, deployer.address, false);
    });

    it('lets the parent revoke a name unless it was minted with PARENT_CANNOT_CONTROL', async () => {
      const frank = await mintParams('frank', alice.address, { fuses: L2_PARENT_CANNOT_CONTROL });
      await mint(frank, await sign(frank));
      const frankNode = namehash(`frank.${PARENT}`);
      expect(await revertOf(l2.send(deployer, registry, l2RegistryAbi, 'revoke', [frankNode]))).toEqual({
        name: 'ParentCannotControl',
        args: [frankNode],
      });
      const daveNode = namehash(`dave.${PARENT}`);
      expect((await revertOf(l2.send(alice, registry, l2RegistryAbi, 'revoke', [daveNode]))).name).toBe(
        'OwnableUnauthorizedAccount',
      );
      await l2.send(deployer, registry, l2RegistryAbi, 'revoke', [daveNode]);
      expect(await read(registry, l2RegistryAbi, 'owner', [daveNode])).toBe(
        '0x0000000000000000000000000000000000000000',
      );
      expect(await read(registry, l2RegistryAbi, 'available', ['dave'])).toBe(true);
    });

    it('treats an expired name as absent: no holder, empty records, no transfer; it can be minted again afresh', async () => {
      const ctx = await mintParams('erin', alice.address, { expiry: (await l2.now()) + 100n });
      const erin = namehash(`erin.${PARENT}`);
      await mint(ctx, await sign(ctx), [setText(erin, 'description', 'first erin')]);
      expect(await text(erin, 'description')).toBe('first erin');

      await l2.increaseTime(200);

      expect(await read(registry, l2RegistryAbi, 'available', ['erin'])).toBe(true);
      expect(await text(erin, 'description')).toBe('');
      expect((await revertOf(read(registry, l2RegistryAbi, 'ownerOf', [BigInt(erin)]))).name).toBe(
        'ERC721NonexistentToken',
      );
      expect(
        (
          await revertOf(
            l2.send(alice, registry, l2RegistryAbi, 'transferFrom', [
              alice.address,
              bob.address,
              BigInt(erin),
            ]),
          )
        ).name,
      ).toBe('NameExpired');
      expect(
        (await revertOf(l2.send(alice, registry, l2RegistryAbi, 'setText', [erin, 'description', 'x']))).name,
      ).toBe('NotAuthorised');

      const again = await mintParams('erin', bob.address);
      await mint(again, await sign(again));
      expect(await read(registry, l2RegistryAbi, 'ownerOf', [BigInt(erin)])).toBe(bob.address);
      expect(await read(registry, l2RegistryAbi, 'balanceOf', [alice.address])).toBe(1n); // frank only
      expect(await text(erin, 'description')).toBe('');
    });
  });

  describe('L2NameResolver (L1)', () => {
    const name = `carol.${PARENT}`;
    const profile = encodeFunctionData({
      abi: recordsAbi,
      functionName: 'multicall',
      args: [
        [
          encodeFunctionData({ abi: recordsAbi, functionName: 'addr', args: [namehash(name)] }),
          encodeFunctionData({
            abi: recordsAbi,
            functionName: 'text',
            args: [namehash(name), 'description'],
          }),
        ],
      ],
    });
    const request = encodeFunctionData({
      abi: parseAbi(['function resolve(bytes name, bytes data) view returns (bytes)']),
      functionName: 'resolve',
      args: [dnsEncode(name), profile],
    });
    const result = encodeAbiParameters(
      [{ type: 'bytes[]' }],
      [
        [
          encodeAbiParameters([{ type: 'address' }], [CAROL_ADDR]),
          encodeAbiParameters([{ type: 'string' }], ['hi']),
        ],
      ],
    );

    const answer = (args: { signer?: BaseWallet; sender?: Address; expires?: bigint }): Promise<unknown> =>
      l2.now().then((t) =>
        read(resolver, resolverAbi, 'resolveWithProof', [
          signOffchainResolverResponse({
            signerKey: (args.signer ?? gatewayKey).privateKey,
            sender: args.sender ?? resolver,
            request,
            result,
            expires: args.expires ?? t + 300n,
          }),
          request,
        ]),
      );

    it('is an ENSIP-10 extended resolver with the ENSIP-22 multicall feature, naming its L2 registry', async () => {
      expect(await read(resolver, resolverAbi, 'supportsInterface', ['0x9061b923'])).toBe(true);
      expect(await read(resolver, resolverAbi, 'supportsInterface', ['0x582de3e7'])).toBe(true);
      const multicallFeature = keccak256(stringToHex('eth.ens.resolver.extended.multicall')).slice(0, 10);
      expect(await read(resolver, resolverAbi, 'supportsFeature', [multicallFeature])).toBe(true);
      expect(await read(resolver, resolverAbi, 'supportsFeature', ['0x12345678'])).toBe(false);
      expect(await read(resolver, resolverAbi, 'l2ChainId', [])).toBe(BigInt(L2_CHAIN_ID));
      expect(await read(resolver, resolverAbi, 'l2Registry', [])).toBe(registry);
    });

    it('answers resolve(name, multicall(...)) with OffchainLookup(sender, urls, callData, callback, extraData)', async () => {
      let data: Hex | undefined;
      try {
        await client.call({
          to: resolver,
          data: encodeFunctionData({
            abi: resolverAbi,
            functionName: 'resolve',
            args: [dnsEncode(name), profile],
          }),
        });
      } catch (err) {
        const raw =
          err instanceof BaseError
            ? err.walk((e) => typeof (e as { data?: unknown }).data === 'string')
            : null;
        data = (raw as { data?: Hex } | null)?.data;
      }
      if (!data) throw new Error('resolve did not revert with data');
      const lookup = decodeErrorResult({ abi: resolverAbi, data });
      expect(lookup.errorName).toBe('OffchainLookup');
      expect(lookup.args).toEqual([
        resolver,
        [GATEWAY_URL],
        request,
        toFunctionSelector('resolveWithProof(bytes,bytes)'),
        request,
      ]);
    });

    it('returns a result signed by a trusted gateway signer for itself or for its caller (a universal resolver)', async () => {
      expect(await answer({})).toBe(result);
      const universalResolver = l2.account(7).address;
      const viaCaller = await client.readContract({
        account: universalResolver,
        address: resolver,
        abi: resolverAbi,
        functionName: 'resolveWithProof',
        args: [
          signOffchainResolverResponse({
            signerKey: gatewayKey.privateKey,
            sender: universalResolver,
            request,
            result,
            expires: (await l2.now()) + 300n,
          }),
          request,
        ],
      });
      expect(viaCaller).toBe(result);
    });

    it('rejects an untrusted signer, an expired answer, another request and garbage', async () => {
      const stranger = Wallet.createRandom();
      expect((await revertOf(answer({ signer: stranger }))).name).toBe('UntrustedSigner');
      const expires = (await l2.now()) - 1n;
      expect(await revertOf(answer({ expires }))).toEqual({ name: 'SignatureExpired', args: [expires] });
      const signed = signOffchainResolverResponse({
        signerKey: gatewayKey.privateKey,
        sender: resolver,
        request,
        result,
        expires: (await l2.now()) + 300n,
      });
      const otherRequest = encodeFunctionData({
        abi: parseAbi(['function resolve(bytes name, bytes data) view returns (bytes)']),
        functionName: 'resolve',
        args: [dnsEncode(`dave.${PARENT}`), profile],
      });
      expect(
        (await revertOf(read(resolver, resolverAbi, 'resolveWithProof', [signed, otherRequest]))).name,
      ).toBe('UntrustedSigner');
      expect(
        (await revertOf(read(resolver, resolverAbi, 'resolveWithProof', ['0x1234', request]))).name,
      ).toBe('InvalidGatewayResponse');
    });
  });

  describe('an L2 name read through L1 by viem, unchanged (ENS on a second anvil, our UniversalResolver)', () => {
    const name = `carol.${PARENT}`;
    let l1: EnsChain;
    let gateway: TestGateway;
    let l1Client: PublicClient;
    let universalResolver: Address;

    beforeAll(async () => {
      l1 = await startEnsChain();
      const l1Deployer = l1.accounts[0];
      if (!l1Deployer) throw new Error('anvil accounts');
      gateway = await startTestGateway({ signerKey: gatewayKey.privateKey });
      const l1Resolver = await deployContract(l1.ens.deployer, l2NameResolverArtifact, [
        gateway.url,
        [gateway.signerAddress],
        L2_CHAIN_ID,
        registry,
      ]);
      await l1.ens.registerEthName('l2', l1Deployer.address, { resolver: await l1Resolver.getAddress() });
      universalResolver = l1.contracts.universalResolver as Address;
      l1Client = createPublicClient({ transport: http(l1.anvil.rpcUrl), pollingInterval: 20 });
      // What the L2 gateway serves: the registry's state, read over the L2 RPC.
      const node = namehash(name);
      gateway.records[name] = {
        addr: (await read(registry, l2RegistryAbi, 'addr', [node])) as string,
        addresses: {
          [String(BASE_COIN_TYPE)]: (await read(registry, l2RegistryAbi, 'addr', [
            node,
            BASE_COIN_TYPE,
          ])) as string,
        },
        texts: {
          description: (await text(node, 'description')) as string,
          url: (await text(node, 'url')) as string,
        },
      };
    });

    afterAll(async () => {
      await gateway?.stop();
      await l1?.stop();
    });

    it('resolves the address, a coin type and texts with getEnsAddress / getEnsText', async () => {
      expect(await getEnsAddress(l1Client, { name, universalResolverAddress: universalResolver })).toBe(
        alice.address,
      );
      expect(
        await getEnsAddress(l1Client, {
          name,
          coinType: BASE_COIN_TYPE,
          universalResolverAddress: universalResolver,
        }),
      ).toBe(bob.address.toLowerCase());
      expect(
        await getEnsText(l1Client, { name, key: 'url', universalResolverAddress: universalResolver }),
      ).toBe('https://bob.example');
      expect(
        await getEnsText(l1Client, {
          name: `nobody.${PARENT}`,
          key: 'url',
          universalResolverAddress: universalResolver,
        }),
      ).toBeNull();
    });

    it('answers a whole profile (ENSIP-22 multicall) with one gateway request', async () => {
      const node = namehash(name);
      const calls = [
        encodeFunctionData({ abi: recordsAbi, functionName: 'addr', args: [node] }),
        encodeFunctionData({ abi: recordsAbi, functionName: 'text', args: [node, 'description'] }),
        encodeFunctionData({ abi: recordsAbi, functionName: 'text', args: [node, 'url'] }),
      ];
      const before = gateway.requestCount();
      const [answer] = (await l1Client.readContract({
        address: universalResolver,
        abi: universalResolverArtifact.abi as Abi,
        functionName: 'resolveWithGateways',
        args: [
          dnsEncode(name),
          encodeFunctionData({ abi: recordsAbi, functionName: 'multicall', args: [calls] }),
          [LOCAL_BATCH_GATEWAY],
        ],
      })) as readonly [Hex, Address];
      expect(gateway.requestCount() - before).toBe(1);
      const [results] = decodeAbiParameters([{ type: 'bytes[]' }], answer);
      expect(decodeFunctionResult({ abi: recordsAbi, functionName: 'addr', data: results[0] ?? '0x' })).toBe(
        alice.address,
      );
      expect(decodeFunctionResult({ abi: recordsAbi, functionName: 'text', data: results[1] ?? '0x' })).toBe(
        'carol on base',
      );
      expect(decodeFunctionResult({ abi: recordsAbi, functionName: 'text', data: results[2] ?? '0x' })).toBe(
        'https://bob.example',
      );
    });
  });
});
