import { describe, expect, it } from 'vitest';
import { GROUPS, groupParams } from './config.svelte';
import type { ConfigParam } from './types';

function param(name: string, group: ConfigParam['group'], extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    alias: null,
    value: '0',
    default: '0',
    group,
    description: `About ${name}.`,
    mutable: true,
    effect: 'live',
    kind: 'int',
    choices: [],
    secret: false,
    ...extra,
  };
}

const params = [
  param('maxmemory-samples', 'memory'),
  param('maxmemory', 'memory', { description: 'Memory limit for data.' }),
  param('hash-max-listpack-entries', 'encoding', { alias: 'hash-max-ziplist-entries' }),
  param('repl-timeout', 'replication', { effect: 'none' }),
  param('maxmemory-policy', 'memory', { kind: 'enum', choices: ['noeviction'] }),
];

describe('groupParams', () => {
  it('groups in the page order, by name within a group, and leaves empty groups out', () => {
    const groups = groupParams(params, '', 'all');
    expect(groups.map((g) => g.group)).toEqual(['memory', 'encoding', 'replication']);
    expect(groups[0].title).toBe('Memory and eviction');
    expect(groups[0].params.map((p) => p.name)).toEqual(['maxmemory', 'maxmemory-policy', 'maxmemory-samples']);
  });

  it('filters by name, alias or description, in any case', () => {
    expect(groupParams(params, 'ZIPLIST', 'all').flatMap((g) => g.params.map((p) => p.name))).toEqual(['hash-max-listpack-entries']);
    expect(groupParams(params, 'limit for', 'all').flatMap((g) => g.params.map((p) => p.name))).toEqual(['maxmemory']);
    expect(groupParams(params, 'maxmemory-s', 'all').flatMap((g) => g.params.map((p) => p.name))).toEqual(['maxmemory-samples']);
    expect(groupParams(params, 'nothing like it', 'all')).toEqual([]);
  });

  it('shows one group when asked', () => {
    expect(groupParams(params, '', 'replication').map((g) => g.group)).toEqual(['replication']);
    expect(groupParams(params, 'maxmemory', 'encoding')).toEqual([]);
  });

  it('has a title for every group', () => {
    expect(new Set(GROUPS.map(([g]) => g)).size).toBe(13);
  });
});
