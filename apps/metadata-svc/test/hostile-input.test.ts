import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import type { RunningService } from '@nrp/server';
import {
  blobKeysFingerprint,
  databaseFingerprint,
  hostileInputFindings,
  listenForTests,
  mainnetOnTestChain,
} from '@nrp/testkit';
import { startEnsChain, startMetadataService, type MetadataService } from './support';

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('metadata-svc under hostile input', () => {
  let chain: Awaited<ReturnType<typeof startEnsChain>>;
  let harness: MetadataService;
  let running: RunningService;

  beforeAll(async () => {
    chain = await startEnsChain({ chainId: 11155111 });
    const owner = chain.accounts[1]?.address ?? '';
    await chain.ens.registerEthName('demo', owner);
    await chain.ens.registerEthName('wrapped', owner);
    await chain.ens.wrapName('wrapped.eth', owner);
    // mainnet is the same test chain: a request for it must reach a node, never a public endpoint.
    harness = await startMetadataService(chain, mainnetOnTestChain(chain));
    running = await listenForTests(harness.app);
  }, 120_000);

  afterAll(async () => {
    await running.shutdown();
    await harness.close();
    await chain.stop();
  });

  it('answers every route below 500, with problem+json for every error, and writes nothing on a 4xx', async () => {
    const database = databaseFingerprint(harness.db.db);
    const findings = await hostileInputFindings({
      url: running.url,
      routes: harness.routes,
      fingerprint: async () => `${await database()}\n${await blobKeysFingerprint(harness.context.blobs)}`,
      knownValues: {
        network: ['sepolia', 'mainnet'],
        name: ['demo.eth', 'wrapped.eth', 'nobody.eth'],
        chainId: ['11155111', '1'],
        tokenId: [tokenIdFromNamehash(namehash('demo.eth')), tokenIdFromNamehash(namehash('wrapped.eth'))],
        address: [chain.accounts[1]?.address ?? ''],
        contractAddress: [chain.contracts.nameWrapper],
        scope: ['avatar', 'header', 'avatar+header'],
      },
    });
    expect(findings).toEqual([]);
  }, 120_000);
});
