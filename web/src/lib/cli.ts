// What redis-cli does with a line and a reply, for the dashboard console:
//
// - `splitArgs` splits a line into arguments exactly as redis-cli does (`sdssplitargs` in
//   Redis's sds.c): whitespace separates, "double quotes" take C escapes (\n \r \t \b \a
//   \xHH \" \\), 'single quotes' take only \', and a closing quote must be followed by
//   whitespace or the end. Arguments are bytes (typed text is UTF-8; \xHH is one raw byte).
// - `formatReply` prints a reply as redis-cli 7 prints it on a terminal over RESP2
//   (`cliFormatReplyTTY`): OK, (integer) 1, (nil), "quoted\x00strings", (error) ...,
//   numbered nested arrays, (empty array). RESP3-only types are shown as a RESP2 connection
//   receives them (maps and sets as flat arrays, doubles as strings, booleans as integers),
//   because the dashboard console is a RESP2 client like a default redis-cli.
// - `isRawOutput` names the commands redis-cli prints raw (INFO, CLIENT LIST, ...).

import type { Bytes, Reply } from './types';
import { bytesToJson, toBytes } from './bytes';

const encoder = new TextEncoder();

function isSpace(c: number): boolean {
  // C's isspace: space, \t, \n, \v, \f, \r
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

function hexValue(c: number): number {
  if (c <= 0x39) return c - 0x30;
  if (c <= 0x46) return c - 0x41 + 10;
  return c - 0x61 + 10;
}

/**
 * Splits a command line into arguments as redis-cli does. Returns `null` for unbalanced
 * quotes or a closing quote followed by something other than whitespace (redis-cli prints
 * "Invalid argument(s)"); an empty or blank line is `[]`.
 */
export function splitArgs(line: string): Uint8Array[] | null {
  const p = encoder.encode(line);
  const n = p.length;
  const at = (i: number): number => (i < n ? p[i] : 0);
  const args: Uint8Array[] = [];
  let i = 0;
  for (;;) {
    while (i < n && isSpace(p[i])) i++;
    if (i >= n) return args;
    let inq = false;
    let insq = false;
    let done = false;
    const cur: number[] = [];
    while (!done) {
      const c = at(i);
      if (inq) {
        if (c === 0x5c && at(i + 1) === 0x78 && isHex(p[i + 2]) && isHex(p[i + 3])) {
          cur.push(hexValue(p[i + 2]) * 16 + hexValue(p[i + 3]));
          i += 3;
        } else if (c === 0x5c && i + 1 < n) {
          i++;
          const e = p[i];
          switch (e) {
            case 0x6e: cur.push(0x0a); break; // \n
            case 0x72: cur.push(0x0d); break; // \r
            case 0x74: cur.push(0x09); break; // \t
            case 0x62: cur.push(0x08); break; // \b
            case 0x61: cur.push(0x07); break; // \a
            default: cur.push(e);
          }
        } else if (c === 0x22) {
          // A closing quote must be followed by a space or nothing at all.
          if (i + 1 < n && !isSpace(p[i + 1])) return null;
          done = true;
        } else if (i >= n) {
          return null; // unterminated quotes
        } else {
          cur.push(c);
        }
      } else if (insq) {
        if (c === 0x5c && at(i + 1) === 0x27) {
          i++;
          cur.push(0x27);
        } else if (c === 0x27) {
          if (i + 1 < n && !isSpace(p[i + 1])) return null;
          done = true;
        } else if (i >= n) {
          return null;
        } else {
          cur.push(c);
        }
      } else if (i >= n) {
        done = true;
      } else {
        switch (c) {
          case 0x20:
          case 0x0a:
          case 0x0d:
          case 0x09:
          case 0x00:
            done = true;
            break;
          case 0x22:
            inq = true;
            break;
          case 0x27:
            insq = true;
            break;
          default:
            cur.push(c);
        }
      }
      if (i < n) i++;
    }
    args.push(Uint8Array.from(cur));
  }
}

/** Arguments in the JSON form `POST /api/command` takes (text, or base64 for other bytes). */
export function argsToJson(args: Uint8Array[]): Bytes[] {
  return args.map(bytesToJson);
}

const textDecoder = new TextDecoder();

/** An argument as text (lossy for non-UTF-8), e.g. to match command names. */
export function argText(arg: Uint8Array): string {
  return textDecoder.decode(arg);
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
 * A double as the server writes it in RESP2 (engine `format_double`): `inf`, `-inf`, `nan`,
 * integers without a fraction, otherwise Rust's shortest round-trip form without exponent.
 */
export function formatDouble(d: number | string): string {
  if (typeof d === 'string') return d;
  if (Number.isNaN(d)) return 'nan';
  if (d === Infinity) return 'inf';
  if (d === -Infinity) return '-inf';
  if (Number.isInteger(d) && Math.abs(d) < 1e17) return (Object.is(d, -0) ? 0 : d).toFixed(0);
  return expandExponent(String(d));
}

/** "1.5e-7" → "0.00000015", "1e+21" → "1000000000000000000000" (same digits, no exponent). */
function expandExponent(s: string): string {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = lead + frac;
  const point = 1 + exp; // position of the decimal point within `digits`
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A reply as a RESP2 connection receives it. */
type Resp2 =
  | { t: 'status'; v: string }
  | { t: 'error'; v: string }
  | { t: 'int'; v: string }
  | { t: 'bulk'; v: Uint8Array }
  | { t: 'nil' }
  | { t: 'array'; v: Resp2[] };

function toResp2(r: Reply): Resp2 {
  switch (r.type) {
    case 'status':
      return { t: 'status', v: r.value };
    case 'error':
      return { t: 'error', v: r.value };
    case 'int':
      return { t: 'int', v: String(r.value) };
    case 'bulk':
      return { t: 'bulk', v: toBytes(r.value) };
    case 'nil':
      return { t: 'nil' };
    case 'array':
    case 'set':
      return { t: 'array', v: r.value.map(toResp2) };
    case 'map':
      return { t: 'array', v: r.value.flatMap(([k, v]) => [toResp2(k), toResp2(v)]) };
    case 'double':
      return { t: 'bulk', v: encoder.encode(formatDouble(r.value)) };
    case 'bool':
      return { t: 'int', v: r.value ? '1' : '0' };
    case 'verbatim':
      return { t: 'bulk', v: encoder.encode(r.value) };
    default:
      return { t: 'error', v: `unknown reply type ${(r as { type: string }).type}` };
  }
}

function formatTTY(r: Resp2, prefix: string): string {
  switch (r.t) {
    case 'error':
      return `(error) ${r.v}\n`;
    case 'status':
      return `${r.v}\n`;
    case 'int':
      return `(integer) ${r.v}\n`;
    case 'bulk':
      return `${repr(r.v)}\n`;
    case 'nil':
      return '(nil)\n';
    case 'array': {
      if (r.v.length === 0) return '(empty array)\n';
      const idxlen = String(r.v.length).length;
      const childPrefix = prefix + ' '.repeat(idxlen + 2);
      let out = '';
      r.v.forEach((el, i) => {
        // The first element goes right after the parent's index, so it gets no prefix.
        out += `${i === 0 ? '' : prefix}${String(i + 1).padStart(idxlen, ' ')}) `;
        out += formatTTY(el, childPrefix);
      });
      return out;
    }
  }
}

const decoder = new TextDecoder();

function formatRaw(r: Resp2): string {
  switch (r.t) {
    case 'nil':
      return '';
    case 'error':
      return r.v + '\n';
    case 'status':
    case 'int':
      return r.v;
    case 'bulk':
      return decoder.decode(r.v);
    case 'array':
      return r.v.map(formatRaw).join('\n');
  }
}

/**
 * Whether redis-cli prints this command's reply raw (no quotes, real newlines) even on a
 * terminal: INFO, LOLWUT, CLIENT LIST/INFO, MEMORY DOCTOR/MALLOC-STATS, LATENCY DOCTOR/GRAPH,
 * CLUSTER NODES/INFO, DEBUG HTSTATS*, as in redis-cli 7's `cliSendCommand`.
 */
export function isRawOutput(argv: string[]): boolean {
  const cmd = (argv[0] ?? '').toLowerCase();
  const sub = (argv[1] ?? '').toLowerCase();
  const argc = argv.length;
  if (cmd === 'info' || cmd === 'lolwut') return true;
  if (argc >= 2 && cmd === 'debug' && ['htstats', 'htstats-key', 'client-eviction'].includes(sub)) return true;
  if (argc >= 2 && cmd === 'memory' && (sub === 'malloc-stats' || sub === 'doctor')) return true;
  if (argc === 2 && cmd === 'cluster' && (sub === 'nodes' || sub === 'info')) return true;
  if (argc >= 2 && cmd === 'client' && (sub === 'list' || sub === 'info')) return true;
  if (argc === 3 && cmd === 'latency' && sub === 'graph') return true;
  if (argc === 2 && cmd === 'latency' && sub === 'doctor') return true;
  if (argc >= 2 && cmd === 'proxy' && sub === 'info') return true;
  return false;
}

/**
 * A reply as redis-cli prints it on a terminal, without the final newline. `raw` prints it as
 * redis-cli does for INFO and the like (see `isRawOutput`); line endings become `\n`.
 */
export function formatReply(reply: Reply, options: { raw?: boolean } = {}): string {
  const r = toResp2(reply);
  if (options.raw) return formatRaw(r).replace(/\r\n/g, '\n').replace(/\n+$/, '');
  return formatTTY(r, '').replace(/\n$/, '');
}

/**
 * Parses the JSON of a `POST /api/command` answer keeping 64-bit integers exact: integer
 * replies beyond 2^53 would lose digits as JS numbers, so they are kept as their digits.
 */
export function parseReplyJson(text: string): Reply {
  // Inside a JSON string every quote is escaped, so this pattern only matches structure.
  const exact = text.replace(/\{\s*"type"\s*:\s*"int"\s*,\s*"value"\s*:\s*(-?\d+)\s*\}/g, '{"type":"int","value":"$1"}');
  return JSON.parse(exact) as Reply;
}
