// The guided tour: a few steps a newcomer can follow, each with commands the "Run" button
// types into the console. FILL is the playground's own command (see backend/wasm.ts).

export interface TourStep {
  title: string;
  text: string;
  commands: string[];
}

export const TOUR: TourStep[] = [
  {
    title: 'Strings',
    text: 'A key holds a value. SET stores it, GET reads it back; INCR treats a string as a number.',
    commands: ['SET greeting "hello world"', 'GET greeting', 'APPEND greeting "!"', 'GET greeting', 'INCR visits', 'INCRBY visits 10'],
  },
  {
    title: 'Expiry (TTL)',
    text: 'A key can live for a while. Watch its TTL count down on the Keys page; when it reaches zero the key is gone and the Evictions page lists an expiration.',
    commands: ['SET session:42 alice EX 8', 'TTL session:42', 'PTTL session:42', 'GET session:42'],
  },
  {
    title: 'Eviction under a tiny limit',
    text: 'Cap memory at 64 KB with the LRU policy, then write 2,000 keys. The cache cannot hold them all, so it evicts the least recently used: watch memory on the Overview and the evicted keys on the Evictions page.',
    commands: ['CONFIG SET maxmemory 64kb', 'CONFIG SET maxmemory-policy allkeys-lru', 'FILL 2000 100', 'DBSIZE'],
  },
  {
    title: 'LRU vs LFU',
    text: 'LRU evicts what was used least recently; LFU evicts what is used least often. A key read many times survives a flood of new keys under LFU, even though it was not read lately.',
    commands: [
      'FLUSHALL',
      'CONFIG SET maxmemory 64kb',
      'CONFIG SET maxmemory-policy allkeys-lfu',
      'SET hot "read often"',
      'GET hot',
      'GET hot',
      'GET hot',
      'GET hot',
      'GET hot',
      'FILL 2000 100',
      'EXISTS hot',
      'OBJECT FREQ hot',
    ],
  },
];
