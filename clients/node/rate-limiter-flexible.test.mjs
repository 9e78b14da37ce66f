// rate-limiter-flexible's RateLimiterRedis on ioredis, against Vitrine and redis-server. Each
// consume is one Lua script (SET NX EX, INCRBY, PTTL) that ioredis runs as a custom command:
// EVAL the first time on a connection, EVALSHA after, and EVAL again on NOSCRIPT.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { KINDS, Server } from './servers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The RateLimiterRes a refused consume rejects with (it is not an Error). */
async function refusal(promise) {
  try {
    await promise;
  } catch (res) {
    assert.ok(res instanceof RateLimiterRes, `rejected with ${res}`);
    return res;
  }
  assert.fail('the consume was allowed');
}

for (const kind of KINDS) {
  describe(`rate-limiter-flexible + ioredis on ${kind}`, () => {
    let server;
    let redis;

    before(async () => {
      server = new Server(kind); // made first, so that after() removes its directory if start() fails
      await server.start();
      redis = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: 1, commandTimeout: 10_000 });
    });
    after(async () => {
      redis?.disconnect();
      await server?.stop();
    });
    beforeEach(async () => {
      await redis.flushall();
    });

    const limiter = (opts = {}) =>
      new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rl', points: 5, duration: 60, ...opts });

    test('consumes up to the limit, then refuses until the window ends', async () => {
      const rl = limiter();
      for (let i = 1; i <= 5; i++) {
        const res = await rl.consume('alice');
        assert.equal(res.consumedPoints, i);
        assert.equal(res.remainingPoints, 5 - i);
        assert.ok(res.msBeforeNext > 59_000 && res.msBeforeNext <= 60_000, String(res.msBeforeNext));
      }
      const res = await refusal(rl.consume('alice'));
      assert.equal(res.remainingPoints, 0);
      assert.equal(res.consumedPoints, 6);
      // The script set the TTL once (SET NX EX), on the first consume.
      assert.equal(await redis.get('rl:alice'), '6');
      const ttl = await redis.pttl('rl:alice');
      assert.ok(ttl > 59_000 && ttl <= 60_000, String(ttl));
      // Another key has its own budget.
      assert.equal((await rl.consume('bob', 2)).remainingPoints, 3);
    });

    test('a short window opens again', async () => {
      const rl = limiter({ points: 2, duration: 1 });
      await rl.consume('alice', 2);
      await refusal(rl.consume('alice'));
      await sleep(1100);
      assert.equal((await rl.consume('alice')).remainingPoints, 1);
    });

    test('a counter left without TTL gets one from the script', async () => {
      await redis.set('rl:carol', '2');
      const res = await limiter().consume('carol');
      assert.equal(res.consumedPoints, 3);
      assert.equal(res.msBeforeNext, 60_000); // the script's `ttl = 1000 * ARGV[2]`
      const ttl = await redis.pttl('rl:carol');
      assert.ok(ttl > 59_000 && ttl <= 60_000, String(ttl));
    });

    test('get, penalty, reward, block and delete', async () => {
      const rl = limiter();
      assert.equal(await rl.get('dave'), null);
      await rl.consume('dave', 2);
      assert.equal((await rl.get('dave')).consumedPoints, 2);
      assert.equal((await rl.penalty('dave', 2)).consumedPoints, 4);
      assert.equal((await rl.reward('dave', 3)).consumedPoints, 1);
      await rl.block('dave', 30); // SET EX in a MULTI, no script
      const res = await refusal(rl.consume('dave'));
      assert.ok(res.msBeforeNext > 29_000 && res.msBeforeNext <= 30_000, String(res.msBeforeNext));
      assert.equal(await rl.delete('dave'), true);
      assert.equal((await rl.consume('dave')).consumedPoints, 1);
    });

    test('NOSCRIPT after SCRIPT FLUSH: ioredis sends EVAL again', async () => {
      const rl = limiter();
      const sha = createHash('sha1').update(rl._incrTtlLuaScript).digest('hex');
      await rl.consume('erin'); // EVAL on this connection: the script is cached
      await rl.consume('erin'); // EVALSHA
      assert.deepEqual(await redis.script('EXISTS', sha), [1]);
      await redis.script('FLUSH');
      assert.deepEqual(await redis.script('EXISTS', sha), [0]);
      assert.equal((await rl.consume('erin')).consumedPoints, 3); // EVALSHA, NOSCRIPT, EVAL
      assert.deepEqual(await redis.script('EXISTS', sha), [1]);
      assert.equal((await rl.consume('erin')).consumedPoints, 4);
    });

    test('the script in a pipeline and in MULTI/EXEC', async () => {
      limiter(); // defines the rlflxIncr command on the client
      const piped = await redis.pipeline().rlflxIncr(['rl:p', '1', '60', '5', '60']).rlflxIncr(['rl:p', '2', '60', '5', '60']).exec();
      assert.deepEqual(piped.map(([err, [consumed]]) => [err, consumed]), [[null, 1], [null, 3]]);
      const multi = await redis.multi().rlflxIncr(['rl:m', '4', '60', '5', '60']).get('rl:m').exec();
      assert.equal(multi[0][0], null);
      assert.equal(multi[0][1][0], 4);
      assert.ok(multi[0][1][1] > 59_000 && multi[0][1][1] <= 60_000);
      assert.deepEqual(multi[1], [null, '4']);
    });

    test('many concurrent consumes are counted exactly', async () => {
      const rl = limiter({ points: 50 });
      const results = await Promise.allSettled(Array.from({ length: 80 }, () => rl.consume('frank')));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 50);
      assert.equal(results.filter((r) => r.status === 'rejected').length, 30);
      assert.equal(await redis.get('rl:frank'), '80');
    });
  });
}
