import type { RunningService } from '@nrp/server';
import {
  foreignCursorFindings,
  hostileInputFindings,
  listenForTests,
  mainnetOnTestChain,
} from '@nrp/testkit';
import {
  startResolverFixture,
  startResolverService,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('resolver-svc under hostile input', () => {
  let fixture: ResolverFixture;
  let service: ResolverService;
  let running: RunningService;

  beforeAll(async () => {
    fixture = await startResolverFixture();
    // mainnet is the same test chain: a request for it must reach a node, never a public endpoint.
    service = await startResolverService(fixture.env(mainnetOnTestChain(fixture.chain)));
    running = await listenForTests(service.app);
  }, 120_000);

  afterAll(async () => {
    await running.shutdown();
    await service.close();
    await fixture.stop();
  });

  it('answers every route below 500, with problem+json for every error', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes: service.routes,
      // resolver-svc writes nothing: its caches are not stored state.
      fingerprint: async () => '',
      knownValues: {
        name: ['alice.eth', 'bob.offchain.eth', 'wrapped.eth', 'noresolver.eth', 'bare.eth'],
        names: ['alice.eth,bob.offchain.eth'],
        // bulk reverse lists wallet addresses; profiles list chains under the same name
        addresses: [`${fixture.accounts.alice},${fixture.accounts.bob}`, 'eth,btc,base'],
        address: [fixture.accounts.alice, fixture.accounts.bob],
        network: ['sepolia', 'mainnet'],
        coins: ['60,0'],
        chains: ['eth,btc,base'],
        texts: ['name,description'],
      },
    });
    expect(findings).toEqual([]);
  }, 120_000);

  it('answers 400 to every cursor it did not issue (random bytes, NUL, invalid UTF-8)', async () => {
    const findings = await foreignCursorFindings(
      { url: running.url, routes: service.routes, fingerprint: async () => '' },
      {
        names: {
          path: `/ens/v2/names/${fixture.accounts.alice}`,
          query: { network: 'sepolia' },
          position: { minted: 'alice.eth', mintedL2: 'alice.eth', offchainPage: 2 },
        },
      },
    );
    expect(findings).toEqual([]);
  }, 120_000);
});
