//! A stripe: one lock's worth of the keyspace, holding a `Shard` per database (see `store`).
//! Database 0's shard is kept inline, beside the lock, and the others in one allocation: most
//! commands run in database 0, and reaching its table then costs no pointer to follow from the
//! lock (a cache miss per command at pipeline 16, where the table itself is usually warm).

use std::ops::{Index, IndexMut};

use super::Shard;

pub struct Stripe {
    first: Shard,
    rest: Box<[Shard]>,
}

impl Stripe {
    /// A stripe of `shards`, database 0 first (at least one).
    pub(crate) fn new(shards: Vec<Shard>) -> Stripe {
        let mut shards = shards.into_iter();
        let first = shards.next().expect("a stripe holds at least database 0");
        Stripe { first, rest: shards.collect() }
    }

    pub fn get(&self, db: usize) -> Option<&Shard> {
        match db {
            0 => Some(&self.first),
            _ => self.rest.get(db - 1),
        }
    }

    pub fn get_mut(&mut self, db: usize) -> Option<&mut Shard> {
        match db {
            0 => Some(&mut self.first),
            _ => self.rest.get_mut(db - 1),
        }
    }

    /// Every database's shard, in database order.
    pub fn iter(&self) -> impl Iterator<Item = &Shard> {
        std::iter::once(&self.first).chain(self.rest.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Shard> {
        std::iter::once(&mut self.first).chain(self.rest.iter_mut())
    }

    /// Exchanges the keys of databases `a` and `b` (SWAPDB); each shard keeps its number.
    pub(crate) fn swap(&mut self, a: usize, b: usize) {
        let (lo, hi) = (a.min(b), a.max(b));
        if lo == hi || hi > self.rest.len() {
            return;
        }
        if lo == 0 {
            self.first.swap_contents(&mut self.rest[hi - 1]);
        } else {
            let (left, right) = self.rest.split_at_mut(hi - 1);
            left[lo - 1].swap_contents(&mut right[0]);
        }
    }
}

impl Index<usize> for Stripe {
    type Output = Shard;
    fn index(&self, db: usize) -> &Shard {
        self.get(db).expect("database in range")
    }
}

impl IndexMut<usize> for Stripe {
    fn index_mut(&mut self, db: usize) -> &mut Shard {
        self.get_mut(db).expect("database in range")
    }
}
