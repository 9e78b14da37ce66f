// Test helpers shared by the unit tests (not part of the app bundle).

import type { KeysByType, Sample } from './types';

/** A sample at `t_ms` with every counter at zero, overridden by `over`. */
export function sample(t_ms: number, over: Partial<Omit<Sample, 'keys_by_type'>> & { keys_by_type?: Partial<KeysByType> } = {}): Sample {
  return {
    t_ms,
    uptime_s: 1,
    used_memory: 1000,
    maxmemory: 0,
    rss_bytes: 5000,
    allocator_bytes: 2000,
    keys: 0,
    keys_with_ttl: 0,
    connected_clients: 1,
    ops_per_sec: 0,
    net_input_per_sec: 0,
    net_output_per_sec: 0,
    commands_processed: 0,
    hits: 0,
    misses: 0,
    misses_never_seen: 0,
    misses_expired: 0,
    misses_evicted: 0,
    evicted_keys: 0,
    expired_keys: 0,
    hit_ratio: 0,
    hits_per_sec: 0,
    misses_per_sec: 0,
    misses_never_seen_per_sec: 0,
    misses_expired_per_sec: 0,
    misses_evicted_per_sec: 0,
    evicted_per_sec: 0,
    expired_per_sec: 0,
    hit_ratio_interval: null,
    tracking_clients: 0,
    tracking_keys: 0,
    invalidations: 0,
    invalidations_per_sec: 0,
    ...over,
    keys_by_type: { string: 0, list: 0, set: 0, zset: 0, hash: 0, stream: 0, ...over.keys_by_type },
  };
}
