import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseParser, streamEvents, type SseEvent } from './sse';

describe('SseParser', () => {
  it('parses events split anywhere across chunks', () => {
    const text = 'event: sample\ndata: {"a":1}\n\n: keep-alive\n\nevent: sample\ndata: {"a":2}\n\n';
    for (let cut = 0; cut < text.length; cut++) {
      const p = new SseParser();
      const events = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      expect(events).toEqual([
        { event: 'sample', data: '{"a":1}' },
        { event: 'sample', data: '{"a":2}' },
      ]);
    }
  });

  it('follows the spec for line endings, multi-line data, ids and defaults', () => {
    const p = new SseParser();
    expect(p.push('\ufeffdata: one\r\ndata:two\r\rid: 7\ndata\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'message', data: '', id: '7' },
    ]);
  });

  it('waits for a \\r that may be half of \\r\\n', () => {
    const p = new SseParser();
    expect(p.push('data: x\r')).toEqual([]);
    expect(p.push('\n\r\n')).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('ignores an event with no data', () => {
    expect(new SseParser().push('event: ping\n\n')).toEqual([]);
  });
});

describe('streamEvents', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('reads events from a fetch body until it ends', async () => {
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode('event: sample\ndata: 1\n\nevent: sam'));
        c.enqueue(enc.encode('ple\ndata: 2\n\n'));
        c.close();
      },
    });
    const fetch = vi.fn(async () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }));
    vi.stubGlobal('fetch', fetch);
    const got: SseEvent[] = [];
    await streamEvents('/api/stats/stream', (e) => got.push(e), new AbortController().signal);
    expect(got.map((e) => e.data)).toEqual(['1', '2']);
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>).Accept).toBe('text/event-stream');
  });

  it('rejects on an HTTP error', async () => {
    vi.stubGlobal('fetch', async () => new Response('{"error":{"code":"x","message":"nope"}}', { status: 500 }));
    await expect(streamEvents('/s', () => {}, new AbortController().signal)).rejects.toMatchObject({ status: 500, message: 'nope' });
  });
});
