import { createLogger, loadConfig, runService, type RunningService } from '@nrp/server';
import { hostileInputFindings, mainnetOnTestChain } from '@nrp/testkit';
import { configSchema } from '../src/config';
import { createService } from '../src/service';
import { startResolverFixture, type ResolverFixture } from '../dev/fixture';

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('resolver-svc under hostile input', () => {
  let fixture: ResolverFixture;
  let running: RunningService;
  let routes: Awaited<ReturnType<typeof createService>>['routes'];
  let close: () => Promise<void>;

  beforeAll(async () => {
    fixture = await startResolverFixture();
    // mainnet is the same test chain: a request for it must reach a node, never a public endpoint.
    const config = loadConfig(configSchema, fixture.env(mainnetOnTestChain(fixture.chain)));
    const logger = createLogger('hostile', 'silent');
    const instance = await createService(config, logger);
    routes = instance.routes;
    running = await runService({
      app: instance.app,
      port: 0,
      host: '127.0.0.1',
      logger,
      graceMs: 1000,
      handleSignals: false,
    });
    close = async () => {
      await running.shutdown();
      for (const step of instance.onShutdown) await step();
    };
  }, 120_000);

  afterAll(async () => {
    await close();
    await fixture.stop();
  });

  it('answers every route below 500, with problem+json for every error', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes,
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
});
