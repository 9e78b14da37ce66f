// RecentEvents: recent evictions and expirations (Backend.recentEvents), refreshed every couple of seconds while the
// Evictions page is open.

import { Poll } from './poll.svelte';
import type { RecentEvents as RecentEventsBody } from './types';

export class RecentEvents extends Poll<RecentEventsBody> {}
