import { describe, expect, it } from 'vitest';
import { commandsFromHash, decodeCommands, encodeCommands, shareLink } from './share';

describe('share links', () => {
  const cmds = ['SET greeting "hello world"', 'GET greeting', "SET emoji '\u00e9\u{1F600}'", 'CONFIG SET maxmemory 64kb'];

  it('round-trips a command list through base64url', () => {
    const enc = encodeCommands(cmds);
    expect(enc).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCommands(enc)).toEqual(cmds);
    expect(decodeCommands(encodeCommands([]))).toEqual([]);
  });

  it('ignores what is not a command list', () => {
    expect(decodeCommands('!!!')).toBeNull();
    expect(decodeCommands(encodeCommands([]).slice(0, 1))).toBeNull();
    expect(decodeCommands(btoa('{"a":1}'))).toBeNull();
    expect(decodeCommands(btoa('[1,2]'))).toBeNull();
    expect(decodeCommands(btoa('[{"db":-1,"line":"PING"}]'))).toBeNull();
    expect(decodeCommands(btoa('[{"db":1}]'))).toBeNull();
  });

  it('carries lines run in a database of their own as {db, line}', () => {
    const mixed = ['SET a 1', { db: 1, line: 'EXPIRE k 100' }, 'GET a'];
    expect(decodeCommands(encodeCommands(mixed))).toEqual(mixed);
  });

  it('reads #cmds= and #/playground?cmds= and builds links on the current page', () => {
    const enc = encodeCommands(cmds);
    expect(commandsFromHash(`#cmds=${enc}`)).toEqual(cmds);
    expect(commandsFromHash(`#/playground?cmds=${enc}`)).toEqual(cmds);
    expect(commandsFromHash('')).toBeNull();
    expect(commandsFromHash('#main')).toBeNull();
    const link = shareLink('http://127.0.0.1:8080/playground?x=1#old', cmds);
    expect(link).toBe(`http://127.0.0.1:8080/playground#cmds=${enc}`);
    expect(commandsFromHash(new URL(link).hash)).toEqual(cmds);
  });
});
