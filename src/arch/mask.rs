//! The Cortex-M critical section's restore token: which mask `acquire` took and what
//! `release` puts back. Pure, so the encoding is tested on the host; the instructions
//! that read and write the masks are in `cortex_m.rs`.
//!
//! Two masks, as in FreeRTOS's own Cortex-M ports:
//! - BASEPRI, on cores that have it (ARMv7-M, ARMv8-M Mainline), once the scheduler
//!   has started and the hooks header has passed a nonzero
//!   `configMAX_SYSCALL_INTERRUPT_PRIORITY`: raised to that level with `BASEPRI_MAX`,
//!   so the interrupts above it, which the kernel never masks either, still run.
//! - PRIMASK otherwise: on ARMv6-M and ARMv8-M Baseline, before the scheduler starts
//!   (the level is not known yet), and where the header passed 0.
//!
//! The token is `critical-section`'s restore state (`restore-state-u32`): bit 8 says
//! BASEPRI, and then bits 0..7 hold its previous value; with bit 8 clear, bit 0 says
//! PRIMASK was clear before, so release clears it again. Each token says what its own
//! acquire took, so sections nest even when the outer one took the other mask (a
//! reader inside a section entered before the scheduler started).

use super::Token;

/// What an `acquire` changed, so what its `release` undoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// PRIMASK set (`cpsid i`); `were_enabled`: it was clear before.
    Primask {
        /// Interrupts were enabled, so release enables them (`cpsie i`).
        were_enabled: bool,
    },
    /// BASEPRI raised with `BASEPRI_MAX` (which never lowers it).
    Basepri {
        /// BASEPRI before, written back on release.
        previous: u8,
    },
}

/// Bit 8 of the token: BASEPRI was taken.
const BASEPRI_TAKEN: Token = 1 << 8;

impl Taken {
    /// The token `critical-section` keeps between acquire and release.
    #[inline(always)]
    pub const fn encode(self) -> Token {
        match self {
            Taken::Primask { were_enabled } => were_enabled as Token,
            Taken::Basepri { previous } => BASEPRI_TAKEN | previous as Token,
        }
    }

    /// What a token from [`Taken::encode`] says.
    #[inline(always)]
    pub const fn decode(token: Token) -> Taken {
        if token & BASEPRI_TAKEN != 0 {
            Taken::Basepri { previous: token as u8 }
        } else {
            Taken::Primask { were_enabled: token & 1 != 0 }
        }
    }
}

/// The BASEPRI level a critical section raises to, from the
/// `configMAX_SYSCALL_INTERRUPT_PRIORITY` the hooks header passes: 0, meaning
/// PRIMASK, for 0 (the port has none) and for a value BASEPRI cannot hold (more than
/// 8 bits), which no Cortex-M port accepts: masking everything is never less than the
/// kernel masks.
#[cfg_attr(not(any(test, cpu_usage_basepri)), allow(dead_code))]
pub const fn basepri_level(max_syscall_priority: u32) -> u8 {
    if max_syscall_priority <= 0xFF {
        max_syscall_priority as u8
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_pinned() {
        assert_eq!(Taken::Primask { were_enabled: false }.encode(), 0x000);
        assert_eq!(Taken::Primask { were_enabled: true }.encode(), 0x001);
        assert_eq!(Taken::Basepri { previous: 0x00 }.encode(), 0x100);
        assert_eq!(Taken::Basepri { previous: 0xA0 }.encode(), 0x1A0);
        assert_eq!(Taken::Basepri { previous: 0xFF }.encode(), 0x1FF);
    }

    #[test]
    fn every_token_decodes_to_what_was_taken_and_no_two_agree() {
        let mut all = vec![Taken::Primask { were_enabled: false }, Taken::Primask { were_enabled: true }];
        all.extend((0..=255u8).map(|previous| Taken::Basepri { previous }));
        let mut tokens: Vec<Token> = all.iter().map(|t| t.encode()).collect();
        for (taken, token) in all.iter().zip(&tokens) {
            assert_eq!(Taken::decode(*token), *taken, "token {token:#05x}");
        }
        tokens.sort_unstable();
        tokens.dedup();
        assert_eq!(tokens.len(), all.len());
    }

    #[test]
    fn levels_that_basepri_cannot_hold_mean_primask() {
        assert_eq!(basepri_level(0), 0);
        assert_eq!(basepri_level(0x10), 0x10);
        assert_eq!(basepri_level(0xA0), 0xA0);
        assert_eq!(basepri_level(0xFF), 0xFF);
        assert_eq!(basepri_level(0x100), 0);
        assert_eq!(basepri_level(0x1A0), 0);
        assert_eq!(basepri_level(u32::MAX), 0);
    }

    /// The two registers as the architecture defines them, for nesting: PRIMASK's
    /// bit, and BASEPRI written through `BASEPRI_MAX` (only if that raises priority:
    /// a nonzero value below the current one, or any nonzero value over 0).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Core {
        primask: bool,
        basepri: u8,
    }

    impl Core {
        /// What `cortex_m.rs`'s acquire does at `level` (0: PRIMASK).
        fn acquire(&mut self, level: u8) -> Token {
            if level == 0 {
                let were_enabled = !self.primask;
                self.primask = true;
                Taken::Primask { were_enabled }.encode()
            } else {
                let previous = self.basepri;
                if self.basepri == 0 || level < self.basepri {
                    self.basepri = level;
                }
                Taken::Basepri { previous }.encode()
            }
        }

        /// What `cortex_m.rs`'s release does.
        fn release(&mut self, token: Token) {
            match Taken::decode(token) {
                Taken::Primask { were_enabled } => {
                    if were_enabled {
                        self.primask = false;
                    }
                }
                Taken::Basepri { previous } => self.basepri = previous,
            }
        }

        /// Whether an interrupt at `priority` (0 most urgent) may run now.
        fn admits(&self, priority: u8) -> bool {
            !self.primask && (self.basepri == 0 || priority < self.basepri)
        }
    }

    #[test]
    fn nested_sections_restore_both_masks_in_any_combination() {
        let starts = [
            Core { primask: false, basepri: 0 },
            Core { primask: true, basepri: 0 },
            Core { primask: false, basepri: 0x80 },
            Core { primask: false, basepri: 0xC0 },
        ];
        for start in starts {
            for outer in [0u8, 0xA0] {
                for inner in [0u8, 0xA0] {
                    let mut core = start;
                    let a = core.acquire(outer);
                    let after_outer = core;
                    let b = core.acquire(inner);
                    assert!(!core.admits(0xA0) && !core.admits(0xE0), "{start:?} {outer:#x} {inner:#x}");
                    core.release(b);
                    assert_eq!(core, after_outer, "inner release, {start:?} {outer:#x} {inner:#x}");
                    core.release(a);
                    assert_eq!(core, start, "outer release, {start:?} {outer:#x} {inner:#x}");
                }
            }
        }
    }

    #[test]
    fn basepri_section_leaves_the_kernels_unmasked_interrupts_alone() {
        let mut core = Core { primask: false, basepri: 0 };
        let token = core.acquire(0xA0);
        assert!(core.admits(0x00) && core.admits(0x80), "above configMAX_SYSCALL_INTERRUPT_PRIORITY");
        assert!(!core.admits(0xA0) && !core.admits(0xE0), "at or below it");
        core.release(token);
        assert!(core.admits(0xE0));

        // A caller that already masked more keeps its mask: BASEPRI_MAX never lowers.
        let mut core = Core { primask: false, basepri: 0x40 };
        let token = core.acquire(0xA0);
        assert_eq!(core.basepri, 0x40);
        core.release(token);
        assert_eq!(core.basepri, 0x40);
    }
}
