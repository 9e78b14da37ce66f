//! Keyspace notifications from dispatch: a handler's event (`Ctx::notify`) and the events the
//! store queued on its own (expired, evicted, new, keymiss), published in one order.

use super::Engine;
use crate::store::Locked;

impl Engine {
    /// Publishes a keyspace event when its class is on: first what the store raised (a lazy
    /// expiry, a new key) so the order is Redis's, then this one. One relaxed load when off.
    #[inline]
    pub(crate) fn notify(&self, class: u32, event: &'static str, db: usize, key: &[u8], now_ms: u64) {
        let flags = self.store.common.events.flags();
        if crate::store::events::wanted(flags, class) {
            let _order = self.notifier.order.lock();
            self.publish_queued(now_ms);
            let limit = self.config.pubsub_output_limit();
            self.notifier.publish(&self.pubsub, flags, class, event, db, key, limit, now_ms);
        }
    }

    /// `Ctx::notify_removal` for callers that hold only the locked shards (serving a
    /// blocked client). Looks the key up only when generic events are on.
    pub(crate) fn notify_removal(&self, db: &mut Locked<'_>, class: u32, event: &'static str, key: &[u8], now_ms: u64) {
        let index = db.db();
        self.notify(class, event, index, key, now_ms);
        let flags = self.store.common.events.flags();
        if crate::store::events::wanted(flags, crate::notify::class::GENERIC) && !db.shard(key).contains(key, now_ms) {
            self.notify(crate::notify::class::GENERIC, "del", index, key, now_ms);
        }
    }

    /// Publishes the events the store queued (expired, evicted, hexpired, new, keymiss).
    #[inline]
    pub(crate) fn publish_store_events(&self, now_ms: u64) {
        if self.store.common.events.any() {
            let _order = self.notifier.order.lock();
            self.publish_queued(now_ms);
        }
    }

    /// Takes and publishes the store's queue; the caller holds `notifier.order`.
    pub(super) fn publish_queued(&self, now_ms: u64) {
        if let Some(events) = self.store.common.events.take() {
            let flags = self.store.common.events.flags();
            let limit = self.config.pubsub_output_limit();
            for e in events {
                self.notifier.publish(&self.pubsub, flags, e.class, e.event, e.db, &e.key, limit, now_ms);
            }
        }
    }
}
