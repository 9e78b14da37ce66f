import { describe, expect, it } from 'vitest';
import { groupRows } from './stream-groups';
import type { StreamGroupView } from './api-types';

describe('groupRows', () => {
  it('shows each group with its lag and consumers with idle times', () => {
    const groups: StreamGroupView[] = [
      {
        name: 'workers',
        last_delivered_id: '2-0',
        entries_read: 2,
        lag: 1,
        pending: 2,
        consumers: [
          { name: 'alice', pending: 2, idle_ms: 1500, inactive_ms: 1500 },
          { name: { base64: '/w==' }, pending: 0, idle_ms: 0, inactive_ms: null },
        ],
      },
      { name: 'late', last_delivered_id: '0-0', entries_read: null, lag: null, pending: 0, consumers: [] },
    ];
    const rows = groupRows(groups);
    expect(rows[0]).toMatchObject({ name: 'workers', lastDelivered: '2-0', entriesRead: '2', lag: '1', pending: '2' });
    expect(rows[0].consumers[0]).toEqual({ name: 'alice', pending: '2', idle: '1s', inactive: '1s' });
    expect(rows[0].consumers[1]).toEqual({ name: '\\xff', pending: '0', idle: '0 ms', inactive: 'never' });
    expect(rows[1]).toMatchObject({ lag: 'unknown', entriesRead: 'unknown', consumers: [] });
    expect(groupRows(null)).toEqual([]);
  });
});
