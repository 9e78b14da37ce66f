import { describe, expect, it } from 'vitest';
import { bytesId, bytesToJson, byteLength, commandLine, displayBytes, fromBase64, hexDump, keyPath, quoteArg, repr, splitName, toBase64, toBytes } from './bytes';

describe('bytes in the API encoding', () => {
  it('keeps UTF-8 as text and other bytes as base64', () => {
    expect(bytesToJson(new TextEncoder().encode('café'))).toBe('café');
    expect(bytesToJson(Uint8Array.from([0xff, 0x00]))).toEqual({ base64: '/wA=' });
    expect(toBytes({ base64: '/wA=' })).toEqual(Uint8Array.from([0xff, 0x00]));
    expect(toBytes('é')).toEqual(Uint8Array.from([0xc3, 0xa9]));
    expect(fromBase64(toBase64(Uint8Array.from([1, 2, 250])))).toEqual(Uint8Array.from([1, 2, 250]));
    expect(byteLength('é')).toBe(2);
  });

  it('tells text and base64 keys apart in ids', () => {
    expect(bytesId('abc')).not.toBe(bytesId({ base64: 'abc' }));
    expect(bytesId('a')).toBe(bytesId('a'));
  });

  it('percent-encodes keys for the path, byte by byte', () => {
    expect(keyPath('user:1')).toBe('user%3A1');
    expect(keyPath('a/b c')).toBe('a%2Fb%20c');
    expect(keyPath('café')).toBe('caf%C3%A9');
    expect(keyPath({ base64: '/wA=' })).toBe('%FF%00');
    expect(keyPath('a-b_c.d~e')).toBe('a-b_c.d~e');
    expect(keyPath('100%')).toBe('100%25');
    expect(keyPath('?#&')).toBe('%3F%23%26');
  });

  it('displays untrusted names on one line', () => {
    expect(displayBytes('plain')).toBe('plain');
    expect(displayBytes('<script>alert(1)</script>')).toBe('<script>alert(1)</script>'); // text, escaped by Svelte
    expect(displayBytes('a\nb\tc\u0000')).toBe('a\\nb\\tc\\x00');
    expect(displayBytes({ base64: '/wBBXA==' })).toBe('\\xff\\x00A\\\\');
  });

  it('dumps binary values as hex', () => {
    const dump = hexDump(Uint8Array.from([0x41, 0x00, 0xff]));
    expect(dump).toBe('00000000  41 00 ff' + ' '.repeat(39) + '  A..');
    expect(hexDump(new Uint8Array(40), 16).split('\n')).toHaveLength(2);
  });
});

describe('splitName', () => {
  it('keeps short names whole', () => {
    expect(splitName('user:1')).toEqual(['user:1', '']);
    expect(splitName('x'.repeat(30))).toEqual(['x'.repeat(30), '']);
    expect(splitName('')).toEqual(['', '']);
  });

  it('starts the tail after a separator near the end', () => {
    const name = 'cart:acme-international-holdings:eu-west-1:session-00002365:items';
    expect(splitName(name)).toEqual(['cart:acme-international-holdings:eu-west-1:', 'session-00002365:items']);
    expect(splitName('customer:acme-international-holdings:eu-west-1:user-00000006:preferences')[1]).toBe('00000006:preferences');
  });

  it('takes the last characters when no separator leaves enough of a tail', () => {
    const name = 'a'.repeat(40) + ':' + 'b'.repeat(30);
    expect(splitName(name)).toEqual(['a'.repeat(40) + ':' + 'b'.repeat(8), 'b'.repeat(22)]);
    expect(splitName('a'.repeat(40) + 'bcdefghijklmnopqrstuv:xyz')[1]).toBe('cdefghijklmnopqrstuv:xyz'.slice(-22));
  });

  it('puts the halves back together as the name, never splitting a code point', () => {
    const name = '😀'.repeat(40);
    const [head, tail] = splitName(name);
    expect(head + tail).toBe(name);
    expect(Array.from(tail)).toHaveLength(22);
    expect(tail.startsWith('😀')).toBe(true);
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

describe('command lines from arguments', () => {
  it('leaves plain words alone and quotes the rest so every byte survives splitting', () => {
    expect(quoteArg('user:1')).toBe('user:1');
    expect(quoteArg('a key')).toBe('"a key"');
    expect(quoteArg('')).toBe('""');
    expect(quoteArg('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteArg("it's")).toBe('"it\'s"');
    expect(quoteArg({ base64: '/wA=' })).toBe('"\\xff\\x00"');
    expect(quoteArg('café')).toBe('"caf\\xc3\\xa9"');
    expect(commandLine(['EXPIRE', 'html:<b>', '60'])).toBe('EXPIRE "html:<b>" 60');
  });
});
