//! Counts in the viewer's messages: `1 window`, `2 windows`.

/// `n` and the noun that goes with it: `one` for 1, `many` otherwise (0 included).
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(0u64, "window", "windows"), "0 windows");
        assert_eq!(count(1u64, "window", "windows"), "1 window");
        assert_eq!(count(2u32, "more task", "more tasks"), "2 more tasks");
    }
}
