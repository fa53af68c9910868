/**
 * The proof route (`POST /api/v1/proofs/{network}`) through HTTP: a ProvenL2Resolver on an L1 anvil raises
 * its lookups, the service answers them with proofs of the L2Registry (anvil 84532, behind an RPC proxy that can
 * fail) against roots the testkit's dev rollup posted on the L1, and the resolver's callback on L1 accepts them.
 * Every refusal is a problem with `message`, no `data`, no host or port.
 */
import request from 'supertest';
import {
  AbiCoder,
  Interface,
  JsonRpcProvider,
  NonceManager,
  Wallet,
  isCallException,
  type Contract,
} from 'ethers';
import { resolverInterface } from '@nrp/chain';
import { deployContract, provenL2ResolverArtifact } from '@nrp/contracts';
import { dnsEncode } from '@nrp/ens';
import { L2_CHAIN_ID, deployDevRollup, startAnvil, type AnvilNode, type DevRollup } from '@nrp/testkit';
import { ALICE, startOffchainService, type OffchainService } from './helpers';
import { startGatewayL2, type GatewayL2 } from './l2-chain';
import { addrCall, textCall } from './l2-gateway-helpers';

const PROVE_REQUEST = new Interface(['function proveRequest(bytes context, (bytes ops) request)']);

const NAME = 'erin.l2.eth';
const PATH = '/api/v1/proofs/base-sepolia';

describe('proof route: storage proofs for ProvenL2Resolver', () => {
  let l2: GatewayL2;
  let l1: AnvilNode;
  let l1Provider: JsonRpcProvider;
  let rollup: DevRollup;
  let svc: OffchainService;
  let resolver: Contract;
  let unservedResolver: Contract;

  /** The OffchainLookup `resolver.resolve(NAME, call)` raises: what the client POSTs, and the callback's session. */
  async function lookup(
    call: string,
    on = resolver,
  ): Promise<{ sender: string; data: string; carry: string }> {
    try {
      await on.getFunction('resolve').staticCall(dnsEncode(NAME), call);
    } catch (err) {
      if (isCallException(err) && err.revert?.name === 'OffchainLookup') {
        const [sender, , data, , carry] = err.revert.args as unknown as [
          string,
          string[],
          string,
          string,
          string,
        ];
        return { sender, data, carry };
      }
      throw err;
    }
    throw new Error('resolve did not raise OffchainLookup');
  }

  const post = (body: unknown) =>
    request(svc.app)
      .post(PATH)
      .send(body as object);

  /** The problem answered to `body`: its status and code, no proof, nothing leaked (and `message` past validation). */
  async function refused(body: unknown, status: number, code: string) {
    const res = await post(body).expect(status);
    expect(res.body.code).toBe(code);
    if (code !== 'INVALID_INPUT') expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.data).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|localhost|ECONN|socket/i);
    return res;
  }

  beforeAll(async () => {
    [l2, l1] = await Promise.all([startGatewayL2(), startAnvil()]);
    await l2.register('erin');
    await l2.setRecord('setAddr', NAME, [ALICE]);
    await l2.setRecord('setText', NAME, ['description', 'erin, proven']);
    const [deployer, , , , , , , operator] = l1.accounts;
    if (!deployer || !operator) throw new Error('anvil accounts');
    rollup = await deployDevRollup({
      l1RpcUrl: l1.rpcUrl,
      l2RpcUrl: l2.proxy.url,
      operatorKey: operator.privateKey,
      gatewayUrls: [],
      windowSeconds: 30,
    });
    await rollup.propose();
    svc = await startOffchainService({
      SEPOLIA_RPC_URL: l1.rpcUrl,
      BASE_SEPOLIA_RPC_URL: l2.proxy.url,
      BASE_SEPOLIA_L2_REGISTRIES: l2.registry,
      BASE_SEPOLIA_PROOF_OPTIMISM_PORTAL: rollup.optimismPortal,
      BASE_SEPOLIA_PROOF_OUTPUT_FINDER: rollup.outputFinder,
      L2_PROOF_L1_BLOCK_TAG: 'latest',
      L2_PROOF_COMMIT_POLL_MS: '0',
      RPC_TIMEOUT_MS: '1500',
    });
    l1Provider = new JsonRpcProvider(l1.rpcUrl, undefined, { staticNetwork: true });
    // Its own nonce count: the provider's short cache could hand two deployments the same pending nonce.
    const signer = new NonceManager(new Wallet(deployer.privateKey, l1Provider));
    const url = `http://offchain.test${PATH}`;
    resolver = await deployContract(signer, provenL2ResolverArtifact, [
      rollup.verifier,
      L2_CHAIN_ID,
      l2.registry,
      [url],
    ]);
    // A resolver of a registry this service does not serve (any address: the prover refuses before reading it).
    unservedResolver = await deployContract(signer, provenL2ResolverArtifact, [
      rollup.verifier,
      L2_CHAIN_ID,
      rollup.l2OutputOracle,
      [url],
    ]);
  });

  afterAll(async () => {
    await svc?.close();
    rollup?.stop();
    l1Provider?.destroy();
    await Promise.all([l2?.stop(), l1?.stop()]);
  });

  beforeEach(() => {
    l2.proxy.setFault(undefined);
    l2.proxy.reset();
  });

  it('answers proofs the resolver’s callback on L1 accepts: the records as the L2 holds them', async () => {
    for (const [call, fn, expected] of [
      [addrCall(NAME), 'addr(bytes32)', ALICE],
      [textCall(NAME, 'description'), 'text', 'erin, proven'],
    ] as const) {
      const { sender, data, carry } = await lookup(call);
      const res = await post({ sender, data }).expect(200);
      expect(res.body).toEqual({ data: expect.stringMatching(/^0x[0-9a-f]+$/) });
      // fetchCallback returns the answer of `resolve` (ABI-encoded bytes) without declaring it.
      const returned = await l1Provider.call({
        to: await resolver.getAddress(),
        data: resolver.interface.encodeFunctionData('fetchCallback', [res.body.data, carry]),
      });
      const [answer] = AbiCoder.defaultAbiCoder().decode(['bytes'], returned) as unknown as [string];
      expect(resolverInterface.decodeFunctionResult(fn, answer)[0]).toBe(expected);
    }
    expect(l2.proxy.methods()).toContain('eth_getProof');
  });

  it.each([
    ['no data', { sender: ALICE }],
    ['a sender that is not an address', { sender: '0x1234', data: '0x' }],
    ['data that is not hex', { sender: ALICE, data: 'proofs please' }],
  ])('answers 400 INVALID_INPUT for %s', async (_case, body) => {
    await refused(body, 400, 'INVALID_INPUT');
  });

  it('answers 400 INVALID_INPUT for an L2 it does not know', async () => {
    const { sender, data } = await lookup(addrCall(NAME));
    const res = await request(svc.app).post('/api/v1/proofs/optimism').send({ sender, data }).expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
  });

  it('answers 400 INVALID_PROOF_REQUEST for callData that is not proveRequest, reading nothing', async () => {
    await refused({ sender: ALICE, data: addrCall(NAME) }, 400, 'INVALID_PROOF_REQUEST');
    await refused({ sender: ALICE, data: '0x31c1980f00' }, 400, 'INVALID_PROOF_REQUEST');
    // proveRequest whose context is shorter than the word naming the rollup commitment.
    const shortContext = PROVE_REQUEST.encodeFunctionData('proveRequest', ['0x01', ['0x']]);
    const res = await refused({ sender: ALICE, data: shortContext }, 400, 'INVALID_PROOF_REQUEST');
    expect(res.body.message).toBe('the context names no commitment');
    expect(l2.proxy.seen).toEqual([]);
  });

  it('answers 404 L2_CONTRACT_NOT_SERVED for a request reading a contract other than our registries', async () => {
    const { sender, data } = await lookup(addrCall(NAME), unservedResolver);
    const res = await refused({ sender, data }, 404, 'L2_CONTRACT_NOT_SERVED');
    expect(res.body.message).toContain(rollup.l2OutputOracle);
    expect(l2.proxy.methods()).not.toContain('eth_getProof');
  });

  it('answers 503 L2_UNAVAILABLE with Retry-After when the L2 node drops eth_getProof', async () => {
    const { sender, data } = await lookup(textCall(NAME, 'dropped'));
    l2.proxy.setFault((call) => (call.method === 'eth_getProof' ? 'drop' : undefined));
    const res = await refused({ sender, data }, 503, 'L2_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.message).toMatch(/unreachable\. No proof/);
  });

  it('answers 502 UPSTREAM_ERROR when the L2 node answers garbage', async () => {
    const { sender, data } = await lookup(textCall(NAME, 'garbage'));
    l2.proxy.setFault((call) => (call.method === 'eth_getProof' ? 'not-json' : undefined));
    await refused({ sender, data }, 502, 'UPSTREAM_ERROR');
  });
});
