//! Numbers read from users and files: whole numbers read within a stated range (every message
//! says the range), totals of counts that are refused rather than wrapped, and digests in hex.

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;

use thiserror::Error;

/// A text that is not a whole number within the range asked for. It displays as what was
/// expected, `a whole number from 1 to 4294967295`, for the caller to put after "must be" or
/// "expected": a number too large for its type is then told the bound, not just refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a whole number from {min} to {max}")]
pub struct NotWhole {
    pub min: String,
    pub max: String,
}

/// Bytes in lower-case hex (the digests of run identities, openings files and packages).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` (spaces around it allowed) as a whole number within `range`.
pub fn whole_number<T>(text: &str, range: RangeInclusive<T>) -> Result<T, NotWhole>
where
    T: FromStr + PartialOrd + Display,
{
    match text.trim().parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(NotWhole {
            min: range.start().to_string(),
            max: range.end().to_string(),
        }),
    }
}

/// The sum of `counts`, or `None` where it would pass `u64::MAX` (a total printed must be the
/// true one, never a wrapped one).
pub fn total(counts: impl IntoIterator<Item = u64>) -> Option<u64> {
    counts.into_iter().try_fold(0u64, u64::checked_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_read_within_their_range() {
        assert_eq!(whole_number(" 7 ", 1u32..=10), Ok(7));
        assert_eq!(whole_number("0", 0u64..=u64::MAX), Ok(0));
        let refused = NotWhole {
            min: "1".into(),
            max: "4294967295".into(),
        };
        for text in ["0", "-1", "99999999999999999999", "1.5", "x", ""] {
            assert_eq!(whole_number(text, 1u32..=u32::MAX), Err(refused.clone()));
        }
        assert_eq!(refused.to_string(), "a whole number from 1 to 4294967295");
    }

    #[test]
    fn totals_refuse_to_wrap() {
        assert_eq!(total([1, 2, 3]), Some(6));
        assert_eq!(total([u64::MAX, 0]), Some(u64::MAX));
        assert_eq!(total([u64::MAX, 1]), None);
        assert_eq!(total([1 << 63, 1 << 63]), None);
    }
}
