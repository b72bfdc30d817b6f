//! Timestamps: an instant with nanosecond precision and an optional UTC offset.

/// An instant (seconds and nanoseconds since 1970-01-01T00:00:00Z) with an
/// optional UTC offset in seconds, as recorded by the writer.
///
/// The offset does not change the instant; it says which local time the
/// writer meant (`2024-01-01T09:00:00+09:00` and `2024-01-01T00:00:00Z` are
/// the same instant with different offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// Whole seconds since the Unix epoch (may be negative).
    pub seconds: i64,
    /// Nanoseconds within the second, `0..1_000_000_000`.
    pub nanos: u32,
    /// UTC offset in seconds, within `-86_399..=86_399`, if known.
    pub offset: Option<i32>,
}

impl Timestamp {
    /// Largest valid `nanos`.
    pub const MAX_NANOS: u32 = 999_999_999;
    /// Largest absolute UTC offset in seconds.
    pub const MAX_OFFSET: i32 = 86_399;

    /// A timestamp, or `None` if `nanos` or `offset` is out of range.
    pub fn new(seconds: i64, nanos: u32, offset: Option<i32>) -> Option<Timestamp> {
        if nanos > Self::MAX_NANOS {
            return None;
        }
        if let Some(o) = offset {
            if !(-Self::MAX_OFFSET..=Self::MAX_OFFSET).contains(&o) {
                return None;
            }
        }
        Some(Timestamp {
            seconds,
            nanos,
            offset,
        })
    }

    /// RFC 3339 text, in the recorded offset (or `Z` without one), with as many
    /// fraction digits as needed (none, 3, 6 or 9).
    /// Years outside 0000..=9999 are written with a sign and more digits.
    pub fn to_rfc3339(&self) -> String {
        let off = self.offset.unwrap_or(0) as i64;
        let local = self.seconds as i128 + off as i128;
        let days = local.div_euclid(86_400);
        let sod = local.rem_euclid(86_400) as i64;
        let (y, m, d) = civil_from_days(days as i64);
        let mut s = if (0..=9999).contains(&y) {
            format!("{y:04}-{m:02}-{d:02}")
        } else {
            format!("{y:+05}-{m:02}-{d:02}")
        };
        s.push_str(&format!(
            "T{:02}:{:02}:{:02}",
            sod / 3600,
            (sod / 60) % 60,
            sod % 60
        ));
        if self.nanos != 0 {
            if self.nanos % 1_000_000 == 0 {
                s.push_str(&format!(".{:03}", self.nanos / 1_000_000));
            } else if self.nanos % 1_000 == 0 {
                s.push_str(&format!(".{:06}", self.nanos / 1_000));
            } else {
                s.push_str(&format!(".{:09}", self.nanos));
            }
        }
        match self.offset {
            None => s.push('Z'),
            Some(o) => {
                let sign = if o < 0 { '-' } else { '+' };
                let a = o.unsigned_abs();
                s.push_str(&format!("{sign}{:02}:{:02}", a / 3600, (a / 60) % 60));
                if a % 60 != 0 {
                    s.push_str(&format!(":{:02}", a % 60));
                }
            }
        }
        s
    }
}

/// Proleptic Gregorian (year, month 1..=12, day 1..=31) to days since
/// 1970-01-01 (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day)
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        let t = Timestamp::new(0, 0, None).unwrap();
        assert_eq!(t.to_rfc3339(), "1970-01-01T00:00:00Z");
        let t = Timestamp::new(1_700_000_000, 123_000_000, Some(3600)).unwrap();
        assert_eq!(t.to_rfc3339(), "2023-11-14T23:13:20.123+01:00");
        let t = Timestamp::new(-1, 1, Some(-1800)).unwrap();
        assert_eq!(t.to_rfc3339(), "1969-12-31T23:29:59.000000001-00:30");
        assert!(Timestamp::new(0, 1_000_000_000, None).is_none());
    }

    #[test]
    fn calendar_round_trip() {
        for days in [-800_000i64, -719_468, -1, 0, 1, 11_016, 19_723, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }
}
