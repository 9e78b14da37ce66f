// Expected outputs below were taken from redis-cli 7.0 (`redis-cli --no-raw`, TTY formatting)
// against redis-server 7, for the same replies.
import { describe, expect, it } from 'vitest';
import { argsToJson, formatDouble, formatReply, isRawOutput, parseReplyJson, repr, splitArgs } from './cli';
import type { Reply } from './types';

const dec = new TextDecoder();
/** splitArgs as text (bytes shown as \xHH when not UTF-8, via repr for exactness). */
const split = (line: string) => splitArgs(line)?.map((a) => dec.decode(a)) ?? null;
const splitRepr = (line: string) => splitArgs(line)?.map(repr) ?? null;

const bulk = (value: string | { base64: string }): Reply => ({ type: 'bulk', value });
const int = (value: number | string): Reply => ({ type: 'int', value });
const arr = (...value: Reply[]): Reply => ({ type: 'array', value });

describe('splitArgs (sdssplitargs)', () => {
  it('splits on whitespace and ignores runs of it', () => {
    expect(split('SET k v')).toEqual(['SET', 'k', 'v']);
    expect(split('  GET   key  ')).toEqual(['GET', 'key']);
    expect(split('a\tb\nc\rd')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('returns no arguments for a blank line', () => {
    expect(split('')).toEqual([]);
    expect(split('   \t ')).toEqual([]);
  });

  it('takes double-quoted strings with C escapes', () => {
    // redis-cli: EVAL "return ARGV" 0 "tab\tnl\ncr\rbell\abs\b" → "tab\tnl\ncr\rbell\abs\b"
    expect(split('"tab\\tnl\\ncr\\rbell\\abs\\b"')).toEqual(['tab\tnl\ncr\rbell\x07bs\b']);
    expect(split('SET k "hello world"')).toEqual(['SET', 'k', 'hello world']);
    expect(split('"say \\"hi\\""')).toEqual(['say "hi"']);
    expect(split('"back\\\\slash"')).toEqual(['back\\slash']);
  });

  it('decodes \\xHH to raw bytes and treats other escapes as the character', () => {
    // redis-cli: "\x41\x4g\z\"\\" → "Ax4gz\"\\"
    expect(split('"\\x41\\x4g\\z\\"\\\\"')).toEqual(['Ax4gz"\\']);
    // "\xZZ" → "xZZ"; "\x4" → "x4"
    expect(split('"\\xZZ" "\\x4"')).toEqual(['xZZ', 'x4']);
    // raw bytes: "caf\xc3\xa9" is the UTF-8 of café; "\xff" is not text
    expect(split('"caf\\xc3\\xa9"')).toEqual(['café']);
    expect(splitRepr('"\\xff\\x00"')).toEqual(['"\\xff\\x00"']);
  });

  it('keeps backslashes outside quotes as they are', () => {
    // redis-cli: caf\xc3 → "caf\\xc3"; trailing\ → "trailing\\"
    expect(split('caf\\xc3 trailing\\')).toEqual(['caf\\xc3', 'trailing\\']);
  });

  it("takes single-quoted strings with only \\' as an escape", () => {
    expect(split("'x\\'y'")).toEqual(["x'y"]);
    expect(split("'single \\n stays'")).toEqual(['single \\n stays']);
    expect(split("'a\\\\b'")).toEqual(['a\\\\b']);
  });

  it('joins a quoted part to the word before it', () => {
    // redis-cli: a"b c" → "ab c"; a'b c' → "ab c"
    expect(split('a"b c"')).toEqual(['ab c']);
    expect(split("a'b c'")).toEqual(['ab c']);
  });

  it('keeps empty quoted arguments', () => {
    expect(split('SET k ""')).toEqual(['SET', 'k', '']);
    expect(split("SET k ''")).toEqual(['SET', 'k', '']);
  });

  it('encodes typed non-ASCII text as UTF-8', () => {
    const args = splitArgs('SET clé 値')!;
    expect(args[1]).toEqual(new TextEncoder().encode('clé'));
    expect(split('SET clé 値')).toEqual(['SET', 'clé', '値']);
  });

  it('rejects unbalanced quotes (redis-cli: Invalid argument(s))', () => {
    expect(splitArgs('GET "unterminated')).toBeNull();
    expect(splitArgs("GET 'unterminated")).toBeNull();
    expect(splitArgs('GET "open \\"')).toBeNull();
  });

  it('rejects a closing quote followed by anything but whitespace', () => {
    expect(splitArgs('GET "closed"x')).toBeNull();
    expect(splitArgs("GET 'closed'y")).toBeNull();
    expect(splitArgs("'it''s'")).toBeNull();
    expect(splitArgs('a"b c"d')).toBeNull();
    expect(split('"closed"\tnext')).toEqual(['closed', 'next']);
  });

  it('turns arguments into the JSON the API takes', () => {
    expect(argsToJson(splitArgs('SET "\\xff" ok')!)).toEqual(['SET', { base64: '/w==' }, 'ok']);
  });
});

describe('repr (sdscatrepr)', () => {
  it('escapes as redis-cli does', () => {
    const bytes = Uint8Array.from([0x01, 0xff, 0x0a, 0x22, 0x71, 0x5c, 0x20, 0x09, 0x0d, 0x07, 0x08]);
    // redis-cli GET of those bytes: "\x01\xff\n\"q\\ \t\r\a\b"
    expect(repr(bytes)).toBe('"\\x01\\xff\\n\\"q\\\\ \\t\\r\\a\\b"');
    expect(repr(new TextEncoder().encode('café'))).toBe('"caf\\xc3\\xa9"');
    expect(repr(new Uint8Array())).toBe('""');
    expect(repr(Uint8Array.from([0x7f, 0x00, 0x7e]))).toBe('"\\x7f\\x00~"');
  });
});

describe('formatReply (redis-cli TTY output)', () => {
  it('formats the scalar replies', () => {
    expect(formatReply({ type: 'status', value: 'OK' })).toBe('OK');
    expect(formatReply({ type: 'status', value: 'PONG' })).toBe('PONG');
    expect(formatReply({ type: 'nil' })).toBe('(nil)');
    expect(formatReply(int(1))).toBe('(integer) 1');
    expect(formatReply(int(-42))).toBe('(integer) -42');
    expect(formatReply(bulk('hello'))).toBe('"hello"');
    expect(formatReply(bulk(''))).toBe('""');
  });

  it('formats errors with (error)', () => {
    expect(formatReply({ type: 'error', value: "ERR unknown command 'foo', with args beginning with: 'bar' " })).toBe(
      "(error) ERR unknown command 'foo', with args beginning with: 'bar' ",
    );
    expect(formatReply({ type: 'error', value: 'WRONGTYPE Operation against a key holding the wrong kind of value' })).toBe(
      '(error) WRONGTYPE Operation against a key holding the wrong kind of value',
    );
  });

  it('escapes non-printable bytes in bulk strings', () => {
    expect(formatReply(bulk('a\nb'))).toBe('"a\\nb"');
    expect(formatReply(bulk('say "hi"'))).toBe('"say \\"hi\\""');
    expect(formatReply(bulk('café'))).toBe('"caf\\xc3\\xa9"');
    expect(formatReply(bulk({ base64: 'Af8KInFcIAkNBwg=' }))).toBe('"\\x01\\xff\\n\\"q\\\\ \\t\\r\\a\\b"');
    expect(formatReply(bulk({ base64: 'AA==' }))).toBe('"\\x00"');
  });

  it('prints (empty array) for an empty array, set or map', () => {
    expect(formatReply(arr())).toBe('(empty array)');
    expect(formatReply({ type: 'set', value: [] })).toBe('(empty array)');
    expect(formatReply({ type: 'map', value: [] })).toBe('(empty array)');
  });

  it('numbers array elements', () => {
    expect(formatReply(arr(bulk('a'), int(1), { type: 'nil' }))).toBe('1) "a"\n2) (integer) 1\n3) (nil)');
  });

  it('right-aligns indexes when there are ten or more', () => {
    const items = 'abcdefghijkl'.split('').map((c) => bulk(c));
    const expected = [
      ' 1) "a"', ' 2) "b"', ' 3) "c"', ' 4) "d"', ' 5) "e"', ' 6) "f"',
      ' 7) "g"', ' 8) "h"', ' 9) "i"', '10) "j"', '11) "k"', '12) "l"',
    ].join('\n');
    expect(formatReply(arr(...items))).toBe(expected);
  });

  it('indents nested arrays as redis-cli does', () => {
    // EVAL "return {'a', {'b', {'c', 'd'}, 3}, 1, {}}" 0
    const reply = arr(bulk('a'), arr(bulk('b'), arr(bulk('c'), bulk('d')), int(3)), int(1), arr());
    expect(formatReply(reply)).toBe(
      ['1) "a"', '2) 1) "b"', '   2) 1) "c"', '      2) "d"', '   3) (integer) 3', '3) (integer) 1', '4) (empty array)'].join('\n'),
    );
  });

  it('widens nested indentation with the parent index width', () => {
    // EVAL "return {1,2,3,4,5,6,7,8,9,10,{'x',{'y','z'}}}" 0
    const reply = arr(...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => int(n)), arr(bulk('x'), arr(bulk('y'), bulk('z'))));
    const lines = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ` ${n}) (integer) ${n}`);
    lines.push('10) (integer) 10', '11) 1) "x"', '    2) 1) "y"', '       2) "z"');
    expect(formatReply(reply)).toBe(lines.join('\n'));
  });

  it('shows errors and statuses inside arrays', () => {
    // EVAL "return {1,{err='E2 in array'}}" 0 and {redis.status_reply('S'), 'b'}
    expect(formatReply(arr(int(1), { type: 'error', value: 'E2 in array' }))).toBe('1) (integer) 1\n2) (error) E2 in array');
    expect(formatReply(arr({ type: 'status', value: 'S' }, bulk('b')))).toBe('1) S\n2) "b"');
  });

  it('flattens maps as a RESP2 connection receives them', () => {
    // HGETALL / CONFIG GET in redis-cli 7 over RESP2
    const map: Reply = {
      type: 'map',
      value: [
        [bulk('f1'), bulk('v1')],
        [bulk('f2'), bulk('v2')],
      ],
    };
    expect(formatReply(map)).toBe('1) "f1"\n2) "v1"\n3) "f2"\n4) "v2"');
    const config: Reply = { type: 'map', value: [[bulk('maxmemory'), bulk('0')]] };
    expect(formatReply(config)).toBe('1) "maxmemory"\n2) "0"');
    const nested: Reply = { type: 'map', value: [[bulk('k'), arr(int(1), int(2))]] };
    expect(formatReply(nested)).toBe('1) "k"\n2) 1) (integer) 1\n   2) (integer) 2');
  });

  it('shows sets, doubles, booleans and verbatim strings as RESP2 sends them', () => {
    expect(formatReply({ type: 'set', value: [bulk('a'), bulk('b')] })).toBe('1) "a"\n2) "b"');
    expect(formatReply({ type: 'double', value: 1.5 })).toBe('"1.5"');
    expect(formatReply({ type: 'double', value: 3 })).toBe('"3"');
    expect(formatReply({ type: 'double', value: 'inf' })).toBe('"inf"');
    expect(formatReply({ type: 'bool', value: true })).toBe('(integer) 1');
    expect(formatReply({ type: 'bool', value: false })).toBe('(integer) 0');
    expect(formatReply({ type: 'verbatim', format: 'txt', value: 'a\nb' })).toBe('"a\\nb"');
  });

  it('keeps 64-bit integers exact', () => {
    const reply = parseReplyJson('{"type":"int","value":9223372036854775807}');
    expect(formatReply(reply)).toBe('(integer) 9223372036854775807');
    const nested = parseReplyJson('{"type":"array","value":[{"type":"int","value":-9223372036854775808},{"type":"bulk","value":"{\\"type\\":\\"int\\",\\"value\\":1}"}]}');
    expect(formatReply(nested)).toBe('1) (integer) -9223372036854775808\n2) "{\\"type\\":\\"int\\",\\"value\\":1}"');
  });

  it('prints INFO and friends raw', () => {
    expect(isRawOutput(['INFO'])).toBe(true);
    expect(isRawOutput(['info', 'memory'])).toBe(true);
    expect(isRawOutput(['CLIENT', 'LIST'])).toBe(true);
    expect(isRawOutput(['client', 'setname', 'x'])).toBe(false);
    expect(isRawOutput(['MEMORY', 'DOCTOR'])).toBe(true);
    expect(isRawOutput(['MEMORY', 'USAGE', 'k'])).toBe(false);
    expect(isRawOutput(['GET', 'k'])).toBe(false);
    const info: Reply = { type: 'bulk', value: '# Memory\r\nused_memory:123\r\n' };
    expect(formatReply(info, { raw: true })).toBe('# Memory\nused_memory:123');
    expect(formatReply({ type: 'verbatim', format: 'txt', value: '# Server\r\nx:1\r\n' }, { raw: true })).toBe('# Server\nx:1');
  });
});

describe('formatDouble (engine format_double)', () => {
  it('matches the server text', () => {
    expect(formatDouble(3)).toBe('3');
    expect(formatDouble(-0)).toBe('0');
    expect(formatDouble(1.5)).toBe('1.5');
    expect(formatDouble(0.1)).toBe('0.1');
    expect(formatDouble(1.5e-7)).toBe('0.00000015');
    expect(formatDouble(1e21)).toBe('1000000000000000000000');
    expect(formatDouble(1.25e20)).toBe('125000000000000000000');
    expect(formatDouble(-2.5e-10)).toBe('-0.00000000025');
    expect(formatDouble(Number.NaN)).toBe('nan');
    expect(formatDouble(Number.NEGATIVE_INFINITY)).toBe('-inf');
  });
});
