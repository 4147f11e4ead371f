//! How the device writes numbers and strings, for the fields whose JSON text serde
//! would write differently: a share always with two decimals (`12.30`, never `12.3`),
//! and a name with every byte outside printable ASCII as `\u00XX` (serde would write
//! it as UTF-8). Reading takes any JSON number or string; [`crate::check`] then says
//! whether it is one the device can write.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// Whole hundredths of `pct` (rounded to the nearest: a two-decimal number read as
/// the nearest binary fraction is within 10^-12 of its hundredths, up to 100.00).
pub fn hundredths_of(pct: f64) -> u64 {
    (pct * 100.0).round().max(0.0) as u64
}

/// `pct` is a whole number of hundredths (not `12.345`), from 0.00 to 100.00.
pub fn is_hundredths(pct: f64) -> bool {
    // 10^-6 hundredths: far above the binary rounding of a two-decimal number, far
    // below a third decimal.
    (0.0..=100.0).contains(&pct) && (pct * 100.0 - (pct * 100.0).round()).abs() < 1e-6
}

/// `pct` as the device writes it: `12.34`.
pub fn pct_text(pct: f64) -> String {
    let h = hundredths_of(pct);
    format!("{}.{:02}", h / 100, h % 100)
}

fn raw<S: Serializer>(s: S, text: String) -> Result<S::Ok, S::Error> {
    RawValue::from_string(text).map_err(serde::ser::Error::custom)?.serialize(s)
}

/// A share: `12.34`.
pub mod pct {
    use super::*;

    pub fn serialize<S: Serializer>(pct: &f64, s: S) -> Result<S::Ok, S::Error> {
        raw(s, pct_text(*pct))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        f64::deserialize(d)
    }
}

/// A share or `null`.
pub mod opt_pct {
    use super::*;

    pub fn serialize<S: Serializer>(pct: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match pct {
            Some(p) => raw(s, pct_text(*p)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<f64>::deserialize(d)
    }
}

/// Three shares, each maybe `null`.
pub mod pct3 {
    use super::*;

    pub fn serialize<S: Serializer>(pcts: &[Option<f64>; 3], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = pcts.iter().map(|p| p.map_or_else(|| "null".to_owned(), pct_text)).collect();
        raw(s, format!("[{}]", text.join(",")))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[Option<f64>; 3], D::Error> {
        <[Option<f64>; 3]>::deserialize(d)
    }
}

/// The device's quoting of a name: `"` and `\` escaped, printable ASCII as is, any
/// other byte `\u00XX`. A character past U+00FF (never from the device) is written
/// as serde would.
pub fn quote(name: &str) -> String {
    let mut s = String::from("\"");
    for c in name.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            ' '..='~' => s.push(c),
            '\0'..='\u{ff}' => s.push_str(&format!("\\u{:04x}", u32::from(c))),
            _ => {
                let quoted = serde_json::to_string(&c.to_string()).unwrap_or_default();
                s.push_str(quoted.trim_matches('"'));
            }
        }
    }
    s.push('"');
    s
}

/// A name or a clock's name, quoted as the device quotes it.
pub mod name {
    use super::*;

    pub fn serialize<S: Serializer>(name: &str, s: S) -> Result<S::Ok, S::Error> {
        raw(s, quote(name))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        String::deserialize(d)
    }
}

/// The bytes a name stands for: each character one byte (printable ASCII as is,
/// anything else written `\u00XX`). `None` if a character is past U+00FF, which the
/// device never writes.
pub fn name_bytes(name: &str) -> Option<Vec<u8>> {
    name.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}
