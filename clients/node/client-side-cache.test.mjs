// node-redis 5's client-side cache (RESP3 and `clientSideCache`), against Vitrine and
// redis-server: reads are served from the library's cache after the first (its own stats say
// so, and the server's GET count agrees), and a value another client changes (SET, DEL, an
// expiry, FLUSHALL, an eviction) is never served stale: the `invalidate` push drops it.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { KINDS, Server } from './servers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The push travels on the cached client's connection, apart from the writer's reply: a
// moment for it to arrive before the next cached read (Redis orders them no more than that).
const SETTLE_MS = 50;

for (const kind of KINDS) {
  describe(`node-redis clientSideCache on ${kind}`, () => {
    let server;
    let cached;
    let plain;

    /** GETs the server has run (INFO commandstats). */
    async function getCalls() {
      const m = (await plain.info('commandstats')).match(/cmdstat_get:calls=(\d+)/);
      return m ? Number(m[1]) : 0;
    }

    /** Reads `key` twice through the cache: both answer `want`, only the first reaches the server. */
    async function readCached(key, want) {
      const [calls, hits] = [await getCalls(), cached.clientSideCache.stats().hitCount];
      assert.equal(await cached.get(key), want);
      assert.equal(await cached.get(key), want);
      assert.equal((await getCalls()) - calls, 1, 'the second read came from the cache');
      assert.equal(cached.clientSideCache.stats().hitCount - hits, 1);
    }

    before(async () => {
      server = new Server(kind);
      await server.start();
      const url = `redis://127.0.0.1:${server.port}`;
      cached = await createClient({ url, RESP: 3, clientSideCache: { ttl: 0, maxEntries: 0 } }).connect();
      plain = await createClient({ url }).connect();
    });
    after(async () => {
      await cached?.quit();
      await plain?.quit();
      await server?.stop();
    });
    beforeEach(async () => {
      await plain.flushAll();
      await sleep(SETTLE_MS);
    });

    test('a SET by another client is never served stale', async () => {
      await plain.set('k', 'v1');
      await readCached('k', 'v1');
      await plain.set('k', 'v2');
      await sleep(SETTLE_MS);
      await readCached('k', 'v2');
    });

    test('DEL and an expiry drop the cached value', async () => {
      await plain.set('gone', '1');
      await readCached('gone', '1');
      await plain.del('gone');
      await sleep(SETTLE_MS);
      assert.equal(await cached.get('gone'), null);
      await plain.set('ttl', '1');
      await readCached('ttl', '1');
      await plain.pExpire('ttl', 100);
      // Nobody reads it: the server's active expiry finds it and sends the invalidation.
      for (let i = 0; i < 100 && (await plain.exists('ttl')); i++) await sleep(50);
      await sleep(SETTLE_MS);
      assert.equal(await cached.get('ttl'), null);
    });

    test('FLUSHALL voids the whole cache', async () => {
      await plain.mSet({ a: '1', b: '2' });
      await readCached('a', '1');
      await readCached('b', '2');
      await plain.flushAll();
      await plain.set('b', '3');
      await sleep(SETTLE_MS);
      assert.equal(await cached.get('a'), null);
      assert.equal(await cached.get('b'), '3');
    });

    test('an evicted key is not served from the cache', async () => {
      await plain.set('k', 'cached');
      await readCached('k', 'cached');
      const used = Number((await plain.info('memory')).match(/used_memory:(\d+)/)[1]);
      const policy = (await plain.configGet('maxmemory-policy'))['maxmemory-policy'];
      await plain.configSet({ 'maxmemory-policy': 'allkeys-lru', maxmemory: String(used + 512 * 1024) });
      try {
        // Cached reads leave the key's access time alone on the server (and so does KEYS).
        const filler = 'x'.repeat(4096);
        for (let i = 0; i < 3000; i++) {
          await plain.set(`fill:${i}`, filler);
          if (i % 50 === 0 && (await plain.keys('k')).length === 0) break;
        }
        assert.deepEqual(await plain.keys('k'), [], 'the fill evicted the key');
        await sleep(SETTLE_MS);
        assert.equal(await cached.get('k'), null);
      } finally {
        await plain.configSet({ maxmemory: '0', 'maxmemory-policy': policy });
      }
    });
  });
}
