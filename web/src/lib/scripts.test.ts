import { describe, expect, it } from 'vitest';
import { ScriptsState, evalArgs, formatReply, splitWords, touchesUndeclared } from './scripts.svelte';
import type { Reply, ScriptDetail, ScriptRow, ScriptsView } from './types';

function row(over: Partial<ScriptRow> = {}): ScriptRow {
  return {
    id: 'a'.repeat(40),
    kind: 'script',
    preview: 'return 1',
    flags: [],
    calls: 0,
    errors: 0,
    avg_us: 0,
    max_us: 0,
    total_us: 0,
    declared_keys: 0,
    touched_keys: 0,
    undeclared_keys: 0,
    undeclared_sample: [],
    selects_db: false,
    last_call_ms: null,
    ...over,
  };
}

describe('the script console', () => {
  it('builds EVAL with the body untouched and the keys counted', () => {
    const body = 'local v = "a b"\nreturn v';
    expect(evalArgs(body, splitWords(' k1  k2\n'), splitWords('x'))).toEqual(['EVAL', body, '2', 'k1', 'k2', 'x']);
    expect(evalArgs('return 1', splitWords('   '), [])).toEqual(['EVAL', 'return 1', '0']);
  });

  it('prints replies as redis-cli does', () => {
    const nested: Reply = {
      type: 'array',
      value: [
        { type: 'bulk', value: 'full' },
        { type: 'int', value: 3 },
        { type: 'array', value: [{ type: 'nil' }, { type: 'status', value: 'OK' }] },
      ],
    };
    expect(formatReply(nested)).toBe('1) "full"\n2) (integer) 3\n3) 1) (nil)\n   2) OK');
    expect(formatReply({ type: 'error', value: 'ERR boom' })).toBe('(error) ERR boom');
    expect(formatReply({ type: 'array', value: [] })).toBe('(empty array)');
  });

  it('flags scripts that touch undeclared keys', () => {
    expect(touchesUndeclared(row({ undeclared_keys: 2 }))).toBe(true);
    expect(touchesUndeclared(row({ touched_keys: 5 }))).toBe(false);
  });
});

describe('ScriptsState', () => {
  const sha = 'b'.repeat(40);

  function fake() {
    const sent: string[][] = [];
    let listed = 0;
    const backend = {
      scripts: async (): Promise<ScriptsView> => {
        listed++;
        return { available: true, message: null, scripts: [row({ id: sha, calls: 1 })], timed: true };
      },
      script: async (id: string): Promise<ScriptDetail> => {
        if (id !== sha) throw new Error(`no script ${id}`);
        return {
          script: row({ id: sha, undeclared_keys: 1 }),
          source: 'return 1',
          commands: [],
          other_commands: 0,
          declared_examples: [],
          touched_examples: ['x'],
          undeclared_examples: ['x'],
        };
      },
      command: async (args: string[]): Promise<Reply> => {
        sent.push(args);
        if (args[0] === 'SCRIPT') return { type: 'bulk', value: sha };
        return { type: 'error', value: 'ERR nope' };
      },
    };
    return { backend, sent, listed: () => listed };
  }

  it('loads and runs the body, showing the SHA and the reply, and refreshes the list', async () => {
    const f = fake();
    const s = new ScriptsState(f.backend);
    s.body = "return 'it''s'";
    s.keys = 'k';
    await s.load();
    expect(f.sent[0]).toEqual(['SCRIPT', 'LOAD', "return 'it''s'"]);
    expect(s.sha).toBe(sha);
    expect(s.result).toEqual({ text: `"${sha}"`, error: false });
    await s.run();
    expect(f.sent[1]).toEqual(['EVAL', "return 'it''s'", '1', 'k']);
    expect(s.result).toEqual({ text: '(error) ERR nope', error: true });
    expect(f.listed()).toBe(2);
    expect(s.available).toBe(true);
  });

  it('selects a script and shows why one cannot be opened', async () => {
    const s = new ScriptsState(fake().backend);
    await s.select(sha);
    expect(s.detail?.undeclared_examples).toEqual(['x']);
    await s.select('nope');
    expect(s.detail).toBeNull();
    expect(s.detailError).toBe('no script nope');
    await s.select(null);
    expect(s.selected).toBeNull();
  });
});
