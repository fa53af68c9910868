import type { RunningService } from '@nrp/server';
import {
  accountAt,
  databaseFingerprint,
  foreignCursorFindings,
  hostileInputFindings,
  listenForTests,
  mainnetOnTestChain,
} from '@nrp/testkit';
import { listDirect, type MintService, startMintService } from './helpers';

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('mint-svc under hostile input', () => {
  let env: MintService;
  let running: RunningService;

  beforeAll(async () => {
    // Without isTestnet a request is for mainnet: here that is the same test chain, never a public endpoint.
    env = await startMintService((chain, controllerAddress) => ({
      ...mainnetOnTestChain(chain),
      MAINNET_BASE_REGISTRAR: chain.contracts.baseRegistrar,
      MAINNET_MINT_CONTROLLER: controllerAddress,
    }));
    running = await listenForTests(env.app);
    await env.chain.ens.registerEthName('shop', accountAt(env.chain, 1).address);
    await listDirect(env, 'shop.eth', { paymentReceiver: accountAt(env.chain, 1).address });
  }, 120_000);

  afterAll(async () => {
    await running.shutdown();
    await env.close();
  });

  it('answers every route below 500, with problem+json for every error, and writes nothing on a 4xx', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes: env.routes,
      fingerprint: databaseFingerprint(env.db.db),
      knownValues: {
        network: ['sepolia'],
        isTestnet: [true, 'true'],
        parentName: ['shop.eth'],
        label: ['alice', 'bob'],
        address: [accountAt(env.chain, 1).address],
        owner: [accountAt(env.chain, 2).address],
        minterAddress: [accountAt(env.chain, 2).address],
        scope: ['listing', 'minter'],
      },
      // Only mainnet has a controller here: a mint on another network is refused as documented (mint-flow.test.ts).
      refusalsByDesign: [{ status: 503, code: 'MINT_CONTROLLER_NOT_CONFIGURED' }],
    });
    expect(findings).toEqual([]);
  }, 120_000);

  it('answers 400 to every cursor it did not issue (random bytes, NUL, invalid UTF-8), and writes nothing', async () => {
    const findings = await foreignCursorFindings(
      { url: running.url, routes: env.routes, fingerprint: databaseFingerprint(env.db.db) },
      {
        listNames: {
          path: '/api/v1/names',
          query: { network: 'sepolia' },
          position: { name: 'alice.shop.eth' },
        },
      },
    );
    expect(findings).toEqual([]);
  }, 120_000);
});
