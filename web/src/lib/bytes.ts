// Binary-safe byte strings as the admin API encodes them: valid UTF-8 is a plain JSON string,
// anything else is {"base64": "..."}. Helpers to decode, display, compare and put them in URLs.

import type { Bytes } from './types';

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export function isBase64(b: Bytes | unknown): b is { base64: string } {
  return typeof b === 'object' && b !== null && typeof (b as { base64?: unknown }).base64 === 'string';
}

/** Standard base64 (with padding) of raw bytes. */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The raw bytes a JSON byte string stands for. */
export function toBytes(b: Bytes): Uint8Array {
  return isBase64(b) ? fromBase64(b.base64) : encoder.encode(b);
}

/** Raw bytes in the API's JSON form: a string when they are valid UTF-8, else base64. */
export function bytesToJson(bytes: Uint8Array): Bytes {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return { base64: toBase64(bytes) };
  }
}

/** A stable identity for a byte string (for keyed lists and equality). */
export function bytesId(b: Bytes): string {
  return isBase64(b) ? 'b64:' + b.base64 : 's:' + b;
}

/**
 * The path segment for a key in `/api/keys/{key}`: every byte percent-encoded except
 * unreserved characters. The server percent-decodes the rest of the path to bytes.
 */
export function keyPath(b: Bytes): string {
  const bytes = toBytes(b);
  let out = '';
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/**
 * A byte string for display, always one line: text stays text except control characters,
 * which are escaped (`\n`, `\t`, `\x00`); non-UTF-8 bytes are shown as redis-cli shows them
 * (`\xff`). The result is plain text for `{...}` interpolation, never HTML.
 */
export function displayBytes(b: Bytes): string {
  if (isBase64(b)) {
    let out = '';
    for (const byte of fromBase64(b.base64)) {
      if (byte === 0x5c) out += '\\\\';
      else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
      else out += escapeControl(byte);
    }
    return out;
  }
  return b.replace(/[\u0000-\u001f\u007f]/g, (c) => escapeControl(c.charCodeAt(0)));
}

function escapeControl(byte: number): string {
  switch (byte) {
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    default:
      return '\\x' + hex2(byte);
  }
}

/**
 * Splits a displayed name into a head, which a narrow screen may cut with an ellipsis, and a
 * tail that always shows: keys that share a long prefix differ at their end, so
 * `cart:acme-…session-00002365:items` still tells one from the next. The tail is the longest
 * end of at most `max` characters that follows a separator (`:` `/` `.` `-` `_` `#` `|` or a
 * space) and keeps at least `min`; without one, the last `max`. Names of up to `whole`
 * characters are not split. Splits between code points, never inside one.
 */
export function splitName(name: string, { max = 22, min = 8, whole = 30 } = {}): [head: string, tail: string] {
  const chars = Array.from(name);
  if (chars.length <= whole) return [name, ''];
  let start = chars.length - max;
  for (let i = start - 1; i < chars.length - min; i++) {
    if (/[:/._#|\s-]/.test(chars[i])) {
      start = i + 1;
      break;
    }
  }
  return [chars.slice(0, start).join(''), chars.slice(start).join('')];
}

/** The length in bytes of a JSON byte string. */
export function byteLength(b: Bytes): number {
  return toBytes(b).length;
}

/** Hex dump lines (16 bytes a line, offset, hex, ASCII) for binary values. */
export function hexDump(bytes: Uint8Array, maxBytes = 4096): string {
  const lines: string[] = [];
  const n = Math.min(bytes.length, maxBytes);
  for (let off = 0; off < n; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(row, hex2).join(' ').padEnd(47, ' ');
    const ascii = Array.from(row, (c) => (c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex}  ${ascii}`);
  }
  if (bytes.length > n) lines.push(`… ${bytes.length - n} more bytes`);
  return lines.join('\n');
}

/**
 * Quotes bytes as redis-cli does (`sdscatrepr`): "..." with \\ \" \n \r \t \a \b escaped,
 * printable ASCII as is, every other byte (UTF-8 included) as \xHH.
 */
export function repr(bytes: Uint8Array): string {
  let out = '"';
  for (const c of bytes) {
    switch (c) {
      case 0x5c: out += '\\\\'; break;
      case 0x22: out += '\\"'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x07: out += '\\a'; break;
      case 0x08: out += '\\b'; break;
      default:
        out += c >= 0x20 && c <= 0x7e ? String.fromCharCode(c) : '\\x' + c.toString(16).padStart(2, '0');
    }
  }
  return out + '"';
}

/**
 * One argument as it can be typed into redis-cli (and the engine's console, which splits as
 * redis-cli does): plain words as they are, anything else quoted with `repr`, so every byte
 * survives the round trip.
 */
export function quoteArg(b: Bytes): string {
  if (typeof b === 'string' && /^[\w:.\-/@*+=,]+$/.test(b)) return b;
  return repr(toBytes(b));
}

/** A command line from arguments (for the console: "EXPIRE \"a key\" 60"). */
export function commandLine(argv: Bytes[]): string {
  return argv.map(quoteArg).join(' ');
}
