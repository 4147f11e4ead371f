//! The task-ID pool: O(1) allocate and release, with a quarantine.
//!
//! Taken IDs are marked in a two-level bitmap: one bit per ID in `words`, and one bit
//! per word in `full` saying that word has no free ID left. Allocation is two
//! count-trailing-zeros on the inverted words, never a search, for up to
//! 32 × 32 = 1024 IDs. Everything starts at zero (all free, nothing quarantined), so
//! the library's state sits in `.bss` and costs no flash for an initial image.
//!
//! A released ID does not go straight back to the bitmap. It waits in a FIFO (linked
//! through the slots' `next` fields, so it costs no extra array) until every window in
//! which its task had time has been published and replaced; only then may a new task
//! take it, so a report never shows two tasks' time under one ID. The FIFO is ordered
//! by release window, so only its head ever needs checking, and allocation moves at
//! most one ready ID from the FIFO to the bitmap: O(1), no sweep at window rollover.

use super::Meta;

/// Taken IDs (bitmap) and quarantined IDs (FIFO of slot indices), for `IDS` IDs in
/// `WORDS` 32-bit words of bitmap.
pub(crate) struct IdPool<const IDS: usize, const WORDS: usize> {
    full: u32,
    words: [u32; WORDS],
    /// First and last quarantined slot index plus one; 0 when the FIFO is empty.
    head: u16,
    tail: u16,
}

impl<const IDS: usize, const WORDS: usize> IdPool<IDS, WORDS> {
    /// What the code assumes of the parameters, checked when a pool is compiled.
    const VALID: () = {
        assert!(IDS >= 1, "an ID pool needs at least one ID");
        assert!(WORDS == IDS.div_ceil(32), "WORDS must be IDS / 32 rounded up");
        // The summary word has one bit per bitmap word; the FIFO's links are slot
        // indices plus one in 16 bits.
        assert!(WORDS <= 32, "an ID pool has at most 1024 IDs");
    };

    /// Every ID free.
    pub(crate) const EMPTY: Self = {
        let () = Self::VALID;
        IdPool { full: 0, words: [0; WORDS], head: 0, tail: 0 }
    };

    /// Takes the lowest free slot index, if any.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<usize> {
        let w = (!self.full).trailing_zeros() as usize;
        let word = self.words.get_mut(w)?;
        let b = (!*word).trailing_zeros() as usize;
        let index = (w << 5) | b;
        // Bits past the last ID read as free; reaching one means every ID is taken.
        if index >= IDS {
            return None;
        }
        *word |= 1u32 << b;
        if *word == u32::MAX || index + 1 == IDS {
            self.full |= 1u32 << w;
        }
        Some(index)
    }

    /// Marks a slot index free.
    #[inline]
    pub(crate) fn put(&mut self, index: usize) {
        let w = index >> 5;
        if let Some(word) = self.words.get_mut(w) {
            *word &= !(1u32 << (index & 31));
            self.full &= !(1u32 << w);
        }
    }

    /// Appends a slot index to the quarantine FIFO.
    #[inline]
    pub(crate) fn quarantine(&mut self, index: u16, meta: &mut [Meta]) {
        if let Some(m) = meta.get_mut(usize::from(index)) {
            m.next = 0;
        }
        match meta.get_mut(usize::from(self.tail.wrapping_sub(1))) {
            Some(tail) => tail.next = index + 1,
            None => self.head = index + 1,
        }
        self.tail = index + 1;
    }

    /// The oldest quarantined slot index, if any.
    #[inline]
    pub(crate) fn oldest(&self) -> Option<usize> {
        usize::from(self.head).checked_sub(1)
    }

    /// Removes the oldest quarantined slot from the FIFO and marks it free.
    #[inline]
    pub(crate) fn release_oldest(&mut self, meta: &[Meta]) {
        let Some(index) = self.oldest() else { return };
        self.head = meta.get(index).map_or(0, |m| m.next);
        if self.head == 0 {
            self.tail = 0;
        }
        self.put(index);
    }

    /// The quarantined slot indices, oldest first (for readers, not hot).
    #[cfg(test)]
    pub(crate) fn quarantine_iter<'a>(&self, meta: &'a [Meta]) -> impl Iterator<Item = usize> + 'a {
        let mut next = self.head;
        // Bounded by the slot count, so a corrupted link can never loop forever.
        (0..meta.len()).map_while(move |_| {
            let index = usize::from(next).checked_sub(1)?;
            next = meta.get(index)?.next;
            Some(index)
        })
    }

    /// Number of free IDs, counted from the bitmap itself (for leak checks, not hot).
    #[cfg(test)]
    pub(crate) fn free_count(&self) -> u32 {
        let taken: u32 = self.words.iter().map(|w| w.count_ones()).sum();
        IDS as u32 - taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `check` on pools of 1, 32, 256 and 1024 IDs: one word of bitmap, partly
    /// or wholly used, and 8 and 32 words (the summary word full).
    macro_rules! at_capacities {
        ($check:ident) => {
            $check::<1, 1>();
            $check::<32, 1>();
            $check::<256, 8>();
            $check::<1024, 32>();
        };
    }

    fn takes_lowest_first_and_all_ids_once<const IDS: usize, const WORDS: usize>() {
        let mut pool = IdPool::<IDS, WORDS>::EMPTY;
        for expected in 0..IDS {
            assert_eq!(pool.take(), Some(expected));
        }
        assert_eq!(pool.take(), None);
        assert_eq!(pool.free_count(), 0);
    }

    #[test]
    fn takes_lowest_first_and_all_ids_once_at_every_capacity() {
        at_capacities!(takes_lowest_first_and_all_ids_once);
    }

    fn put_makes_an_id_available_again<const IDS: usize, const WORDS: usize>() {
        let mut pool = IdPool::<IDS, WORDS>::EMPTY;
        let a = pool.take().unwrap();
        if IDS == 1 {
            assert_eq!(pool.take(), None);
            pool.put(a);
            assert_eq!(pool.take(), Some(a));
            assert_eq!(pool.take(), None);
            return;
        }
        let b = pool.take().unwrap();
        pool.put(a);
        assert_eq!(pool.take(), Some(a));
        assert_ne!(pool.take(), Some(b));
    }

    #[test]
    fn put_makes_an_id_available_again_at_every_capacity() {
        at_capacities!(put_makes_an_id_available_again);
    }

    /// Three IDs taken (one with a single ID), the last and then the first put in
    /// quarantine: they come out in that order.
    fn quarantine_is_fifo<const IDS: usize, const WORDS: usize>() {
        let mut pool = IdPool::<IDS, WORDS>::EMPTY;
        let mut links = [Meta::FREE; IDS];
        let taken: Vec<usize> = (0..IDS.min(3)).map(|_| pool.take().unwrap()).collect();
        let order = if taken.len() >= 2 { vec![taken[taken.len() - 1], taken[0]] } else { vec![taken[0]] };
        for &index in &order {
            pool.quarantine(index as u16, &mut links);
        }
        assert_eq!(pool.quarantine_iter(&links).count(), order.len());
        for &index in &order {
            assert_eq!(pool.oldest(), Some(index));
            pool.release_oldest(&links);
        }
        assert_eq!(pool.oldest(), None);
        assert_eq!(pool.quarantine_iter(&links).count(), 0);
        pool.release_oldest(&links); // empty: no effect
        assert_eq!(pool.free_count() as usize, IDS - taken.len() + order.len());
    }

    #[test]
    fn quarantine_is_fifo_at_every_capacity() {
        at_capacities!(quarantine_is_fifo);
    }
}
