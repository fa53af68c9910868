import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Deep import: only the s3rver helper, not the whole testkit (anvil, contracts).
import { startS3Server, type TestS3Server } from '@nrp/testkit/src/s3-server';
import {
  blobStoreFromEnv,
  createLocalBlobStore,
  createS3BlobStore,
  listBlobKeyPages,
  parseBlobStoreConfig,
  BlobArgumentError,
  StorageError,
  type BlobStore,
} from '../src';

/** The same assertions for every implementation. */
function blobStoreContract(name: string, make: () => Promise<{ store: BlobStore; done(): Promise<void> }>) {
  describe(name, () => {
    let store: BlobStore;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ store, done } = await make());
    });
    afterAll(async () => {
      await done();
    });

    test('ping succeeds', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    test('put then get returns bytes and content type', async () => {
      const bytes = Buffer.from([0, 1, 2, 10, 13, 255, 0x0a]);
      await store.put('images/a/1.png', bytes, 'image/png');
      const got = await store.get('images/a/1.png');
      expect(got?.contentType).toBe('image/png');
      expect(got && Buffer.compare(got.bytes, bytes)).toBe(0);
    });

    test('put overwrites', async () => {
      await store.put('over/x', Buffer.from('one'), 'text/plain');
      await store.put('over/x', Buffer.from('two!'), 'application/json');
      const got = await store.get('over/x');
      expect(got?.bytes.toString()).toBe('two!');
      expect(got?.contentType).toBe('application/json');
    });

    test('missing key → null; delete is idempotent', async () => {
      expect(await store.get('nope/missing.png')).toBeNull();
      await store.put('del/me', Buffer.from('x'), 'text/plain');
      await store.delete('del/me');
      expect(await store.get('del/me')).toBeNull();
      await expect(store.delete('del/me')).resolves.toBeUndefined();
    });

    test('list by prefix, sorted', async () => {
      await store.put('list/b/2', Buffer.from('2'), 'text/plain');
      await store.put('list/a/1', Buffer.from('1'), 'text/plain');
      await store.put('list/a/3', Buffer.from('3'), 'text/plain');
      await store.put('listing-other', Buffer.from('o'), 'text/plain');
      expect(await store.list('list/a/')).toEqual(['list/a/1', 'list/a/3']);
      expect(await store.list('list/')).toEqual(['list/a/1', 'list/a/3', 'list/b/2']);
      expect(await store.list('list')).toEqual(['list/a/1', 'list/a/3', 'list/b/2', 'listing-other']);
      expect(await store.list('zzz/')).toEqual([]);
    });

    test('listBlobKeyPages: every key under the prefix once, in pages of at most pageSize', async () => {
      const keys = Array.from({ length: 23 }, (_, i) => `paged/${i % 3}/k${String(i).padStart(2, '0')}`);
      for (const key of keys) await store.put(key, Buffer.from(key), 'text/plain');
      await store.put('pagedother/x', Buffer.from('x'), 'text/plain');
      expect(store.listPages).toBeDefined();
      const pages: string[][] = [];
      for await (const page of listBlobKeyPages(store, 'paged/', { pageSize: 5 })) pages.push(page);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
      expect(pages.flat().sort()).toEqual([...keys].sort());
      const narrow: string[] = [];
      for await (const page of listBlobKeyPages(store, 'paged/1/')) narrow.push(...page);
      expect(narrow.sort()).toEqual(keys.filter((k) => k.startsWith('paged/1/')).sort());
      const partial: string[] = [];
      for await (const page of listBlobKeyPages(store, 'paged', { pageSize: 100 })) partial.push(...page);
      expect(partial.sort()).toEqual([...keys, 'pagedother/x'].sort());
      const none: string[][] = [];
      for await (const page of listBlobKeyPages(store, 'paged/none/')) none.push(page);
      expect(none).toEqual([]);
    });

    test('listBlobKeyPages: leaving early is fine; bad arguments are BlobArgumentErrors', async () => {
      for await (const page of listBlobKeyPages(store, 'paged/', { pageSize: 2 })) {
        expect(page).toHaveLength(2);
        break;
      }
      const pages = listBlobKeyPages(store, 'paged/', { pageSize: 0 });
      await expect(pages.next()).rejects.toBeInstanceOf(BlobArgumentError);
      await expect(listBlobKeyPages(store, '../x').next()).rejects.toBeInstanceOf(BlobArgumentError);
    });

    test('empty blob round-trips', async () => {
      await store.put('empty', Buffer.alloc(0), 'application/octet-stream');
      const got = await store.get('empty');
      expect(got?.bytes.length).toBe(0);
      expect(got?.contentType).toBe('application/octet-stream');
    });

    test.each(['../escape', '/abs', 'a//b', 'a/../b', '.hidden', 'a/./b', '', 'sp ace', 'a\\b'])(
      'rejects key %p with BlobArgumentError',
      async (key) => {
        await expect(store.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(
          BlobArgumentError,
        );
        await expect(store.get(key)).rejects.toBeInstanceOf(BlobArgumentError);
      },
    );

    test('rejects content types with control characters', async () => {
      await expect(store.put('ct', Buffer.from('x'), 'text/plain\nx')).rejects.toBeInstanceOf(
        BlobArgumentError,
      );
    });
  });
}

blobStoreContract('local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nrp-blobs-'));
  return { store: createLocalBlobStore(dir), done: () => rm(dir, { recursive: true, force: true }) };
});

blobStoreContract('S3 (s3rver)', async () => {
  const s3 = await startS3Server();
  return { store: createS3BlobStore({ ...s3 }), done: () => s3.stop() };
});

test('listBlobKeyPages falls back to list for a store without listPages', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'nrp-blobs-'));
  try {
    const { listPages: _paged, ...plain } = createLocalBlobStore(dir);
    for (const key of ['f/a', 'f/b', 'f/c']) await plain.put(key, Buffer.from(key), 'text/plain');
    const pages: string[][] = [];
    for await (const page of listBlobKeyPages(plain, 'f/', { pageSize: 2 })) pages.push(page);
    expect(pages).toEqual([['f/a', 'f/b'], ['f/c']]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

describe('local store specifics', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nrp-blobs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('writes leave no temp files behind and stay inside the directory', async () => {
    const store = createLocalBlobStore(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.put('same/key', Buffer.from(`v${i}`), 'text/plain')),
    );
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    expect((await store.get('same/key'))?.bytes.toString()).toMatch(/^v\d+$/);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['objects', 'tmp']));
  });

  test('ping fails with StorageError when the directory cannot be created', async () => {
    await writeFile(join(dir, 'a-file'), 'x');
    const store = createLocalBlobStore(join(dir, 'a-file', 'blobs'));
    await expect(store.ping()).rejects.toBeInstanceOf(StorageError);
  });
});

describe('S3 specifics', () => {
  let s3: TestS3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.stop();
  });

  test('a missing bucket fails ping and put with StorageError', async () => {
    const store = createS3BlobStore({ ...s3, bucket: 'no-such-bucket' });
    await expect(store.ping()).rejects.toBeInstanceOf(StorageError);
    await expect(store.put('k', Buffer.from('x'), 'text/plain')).rejects.toThrow(/storage put "k" failed/);
  });

  test('blobStoreFromEnv picks S3 when S3_BUCKET is set', async () => {
    const store = blobStoreFromEnv({
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    await store.put('env/k', Buffer.from('v'), 'text/plain');
    expect((await createS3BlobStore(s3).get('env/k'))?.bytes.toString()).toBe('v');
  });
});

describe('config', () => {
  test('local by default, with BLOB_DIR', () => {
    expect(parseBlobStoreConfig({})).toEqual({ kind: 'local', dir: '.data/blobs' });
    expect(parseBlobStoreConfig({ BLOB_DIR: '/var/blobs', S3_BUCKET: '' })).toEqual({
      kind: 'local',
      dir: '/var/blobs',
    });
  });
  test('S3 when S3_BUCKET is set; region defaults to us-east-1', () => {
    expect(parseBlobStoreConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000' })).toEqual({
      kind: 's3',
      bucket: 'b',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
    });
  });
  test('rejects a malformed endpoint', () => {
    expect(() => parseBlobStoreConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'not a url' })).toThrow();
  });
});
