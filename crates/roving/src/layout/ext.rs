//! The well-known extension type ids and their payloads.
//!
//! Extension records (`0E`) carry an application-chosen type id; the ids
//! below are the ones roving's own packages write (the Python package
//! maps `datetime.date`, `uuid.UUID`, `decimal.Decimal`, `datetime.time`
//! and `datetime.timedelta` to them). This module has their payload
//! codecs, built and strictly checked: every value has exactly one
//! payload, and every payload the checks accept is one value.
//!
//! * date ([`EXT_DATE`]): days since 1970-01-01, `i32` LE, 4 bytes, in
//!   years 1..=9999.
//! * UUID ([`EXT_UUID`]): the 16 bytes, big endian.
//! * decimal ([`EXT_DECIMAL`]): its text in printable ASCII, not empty.
//! * time ([`EXT_TIME`]): microseconds since midnight (`u64` LE, below
//!   86,400,000,000), `fold` (`u8`, 0 or 1), then for an aware time its UTC
//!   offset in microseconds (`i64` LE, strictly between -86,400,000,000 and
//!   86,400,000,000): 9 bytes naive, 17 bytes aware.
//! * timedelta ([`EXT_TIMEDELTA`]): whole seconds, rounded down (`i64`
//!   LE), then microseconds (`u32` LE, below 1,000,000): 12 bytes, within
//!   -999,999,999 days to 999,999,999 days 86,399.999999 s.
//!
//! ```
//! use roving::layout::ext::{self, Delta};
//! let d = Delta { seconds: -1, micros: 500_000 }; // -0.5 s
//! assert_eq!(ext::timedelta_payload(&d.payload()), Ok(d));
//! assert_eq!(ext::date_payload(&ext::date_days_payload(0)), Ok((1970, 1, 1)));
//! ```

use crate::timestamp::civil_from_days;

/// Extension type id of a date (payload: days since 1970-01-01, i32 LE).
pub const EXT_DATE: u64 = 1;
/// Extension type id of a UUID (payload: the 16 bytes, big endian).
pub const EXT_UUID: u64 = 2;
/// Extension type id of a decimal number (payload: its text in ASCII).
pub const EXT_DECIMAL: u64 = 3;
/// Extension type id of a time of day (payload: microseconds since
/// midnight u64 LE, fold u8, then for an aware time the UTC offset in
/// microseconds i64 LE: 9 or 17 bytes; see [`TimeOfDay`]).
pub const EXT_TIME: u64 = 4;
/// Extension type id of a duration (payload: seconds rounded down i64 LE,
/// microseconds u32 LE: 12 bytes; see [`Delta`]).
pub const EXT_TIMEDELTA: u64 = 5;

/// Microseconds in a day.
pub const US_PER_DAY: u64 = 86_400_000_000;
/// The seconds of the smallest duration (-999,999,999 days; its
/// microseconds are 0).
pub const DELTA_MIN_SECONDS: i64 = -999_999_999 * 86_400;
/// The seconds of the largest duration (999,999,999 days 86,399.999999 s;
/// its microseconds are 999,999).
pub const DELTA_MAX_SECONDS: i64 = 999_999_999 * 86_400 + 86_399;

/// The [`EXT_DATE`] payload of a day count since 1970-01-01.
#[inline]
pub fn date_days_payload(days: i32) -> [u8; 4] {
    days.to_le_bytes()
}

/// The date of an [`EXT_DATE`] payload (days since 1970-01-01, i32 LE) as
/// year, month and day, or why it is none: not 4 bytes, or outside years
/// 1..=9999.
pub fn date_payload(data: &[u8]) -> Result<(i32, u8, u8), &'static str> {
    let days = <[u8; 4]>::try_from(data).map_err(|_| "bad date payload (expected 4 bytes)")?;
    let (y, m, d) = civil_from_days(i32::from_le_bytes(days) as i64);
    if !(1..=9999).contains(&y) {
        return Err("date outside the range of datetime.date");
    }
    Ok((y as i32, m as u8, d as u8))
}

/// The 16 bytes of an [`EXT_UUID`] payload, if it is 16 bytes long.
#[inline]
pub fn uuid_payload(data: &[u8]) -> Option<&[u8; 16]> {
    data.try_into().ok()
}

/// The canonical text of a UUID (`8-4-4-4-12` lowercase hex digits).
pub fn uuid_text(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The text of an [`EXT_DECIMAL`] payload, if it is printable ASCII (and
/// not empty).
pub fn decimal_text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_graphic()))
}

/// A time of day, naive or at a fixed UTC offset: the value of an
/// [`EXT_TIME`] payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeOfDay {
    /// Microseconds since midnight, below [`US_PER_DAY`].
    pub micros: u64,
    /// The `fold` of a repeated wall time (Python's `time.fold`).
    pub fold: bool,
    /// UTC offset in microseconds (|offset| < [`US_PER_DAY`]), `None` if naive.
    pub offset: Option<i64>,
}

impl TimeOfDay {
    /// Hour, minute, second and microsecond.
    pub fn fields(&self) -> (u8, u8, u8, u32) {
        let s = self.micros / 1_000_000;
        (
            (s / 3600) as u8,
            (s / 60 % 60) as u8,
            (s % 60) as u8,
            (self.micros % 1_000_000) as u32,
        )
    }

    /// The [`EXT_TIME`] payload.
    pub fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(17);
        out.extend_from_slice(&self.micros.to_le_bytes());
        out.push(self.fold as u8);
        if let Some(o) = self.offset {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out
    }
}

/// The time of an [`EXT_TIME`] payload, or why it is none.
pub fn time_payload(data: &[u8]) -> Result<TimeOfDay, &'static str> {
    if data.len() != 9 && data.len() != 17 {
        return Err("bad time payload (expected 9 or 17 bytes)");
    }
    let micros = u64::from_le_bytes(data[..8].try_into().unwrap_or_default());
    if micros >= US_PER_DAY {
        return Err("bad time payload (microseconds past the end of the day)");
    }
    let fold = match data[8] {
        0 => false,
        1 => true,
        _ => return Err("bad time payload (fold is not 0 or 1)"),
    };
    let offset = match data.get(9..) {
        Some(o) if o.len() == 8 => {
            let o = i64::from_le_bytes(o.try_into().unwrap_or_default());
            if o.unsigned_abs() >= US_PER_DAY {
                return Err("bad time payload (UTC offset of a day or more)");
            }
            Some(o)
        }
        _ => None,
    };
    Ok(TimeOfDay {
        micros,
        fold,
        offset,
    })
}

/// A duration: whole seconds (rounded down) and microseconds
/// (0..1,000,000): the value of an [`EXT_TIMEDELTA`] payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delta {
    /// Whole seconds, rounded down.
    pub seconds: i64,
    /// Microseconds, below 1,000,000.
    pub micros: u32,
}

impl Delta {
    /// From `timedelta`'s own fields (days, seconds 0..86,400, microseconds
    /// 0..1,000,000).
    pub fn from_fields(days: i32, seconds: i32, micros: i32) -> Delta {
        Delta {
            seconds: days as i64 * 86_400 + seconds as i64,
            micros: micros as u32,
        }
    }

    /// `timedelta`'s fields: days, seconds (0..86,400), microseconds.
    pub fn fields(&self) -> (i32, i32, i32) {
        (
            self.seconds.div_euclid(86_400) as i32,
            self.seconds.rem_euclid(86_400) as i32,
            self.micros as i32,
        )
    }

    /// The [`EXT_TIMEDELTA`] payload.
    pub fn payload(&self) -> [u8; 12] {
        let mut out = [0; 12];
        out[..8].copy_from_slice(&self.seconds.to_le_bytes());
        out[8..].copy_from_slice(&self.micros.to_le_bytes());
        out
    }

    /// From a count of microseconds, if within the range of durations
    /// ([`DELTA_MIN_SECONDS`] ..= [`DELTA_MAX_SECONDS`]).
    pub fn from_micros(us: i128) -> Option<Delta> {
        let d = Delta {
            seconds: i64::try_from(us.div_euclid(1_000_000)).ok()?,
            micros: us.rem_euclid(1_000_000) as u32,
        };
        (DELTA_MIN_SECONDS..=DELTA_MAX_SECONDS)
            .contains(&d.seconds)
            .then_some(d)
    }

    /// The duration in microseconds.
    pub fn total_micros(&self) -> i128 {
        self.seconds as i128 * 1_000_000 + self.micros as i128
    }
}

/// The duration of an [`EXT_TIMEDELTA`] payload, or why it is none.
pub fn timedelta_payload(data: &[u8]) -> Result<Delta, &'static str> {
    let b: &[u8; 12] = data
        .try_into()
        .map_err(|_| "bad timedelta payload (expected 12 bytes)")?;
    let seconds = i64::from_le_bytes(b[..8].try_into().unwrap_or_default());
    let micros = u32::from_le_bytes(b[8..].try_into().unwrap_or_default());
    if micros >= 1_000_000 {
        return Err("bad timedelta payload (microseconds of a second or more)");
    }
    if !(DELTA_MIN_SECONDS..=DELTA_MAX_SECONDS).contains(&seconds) {
        return Err("timedelta outside the range of datetime.timedelta");
    }
    Ok(Delta { seconds, micros })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_payloads_round_trip_and_are_checked() {
        for t in [
            TimeOfDay {
                micros: 0,
                fold: false,
                offset: None,
            },
            TimeOfDay {
                micros: US_PER_DAY - 1,
                fold: true,
                offset: Some(-(US_PER_DAY as i64) + 1),
            },
        ] {
            assert_eq!(time_payload(&t.payload()), Ok(t));
        }
        assert!(time_payload(&[0; 10]).is_err());
        let mut p = [0u8; 9];
        p[8] = 2;
        assert!(time_payload(&p).is_err());
    }

    #[test]
    fn other_payloads_are_checked() {
        assert_eq!(date_payload(&date_days_payload(-719_162)), Ok((1, 1, 1)));
        assert!(date_payload(&date_days_payload(-719_163)).is_err());
        assert!(date_payload(&[0; 3]).is_err());
        let u: [u8; 16] = std::array::from_fn(|i| i as u8 * 17);
        assert_eq!(
            uuid_text(uuid_payload(&u).unwrap()),
            "00112233-4455-6677-8899-aabbccddeeff"
        );
        assert!(uuid_payload(&u[1..]).is_none());
        assert_eq!(decimal_text(b"-1.5E+3"), Some("-1.5E+3"));
        assert_eq!(decimal_text(b""), None);
        assert_eq!(decimal_text(b"1 5"), None);
        for d in [
            Delta {
                seconds: DELTA_MIN_SECONDS,
                micros: 0,
            },
            Delta {
                seconds: DELTA_MAX_SECONDS,
                micros: 999_999,
            },
        ] {
            assert_eq!(timedelta_payload(&d.payload()), Ok(d));
            assert_eq!(Delta::from_micros(d.total_micros()), Some(d));
        }
        let over = Delta {
            seconds: DELTA_MAX_SECONDS + 1,
            micros: 0,
        };
        assert!(timedelta_payload(&over.payload()).is_err());
        assert_eq!(Delta::from_micros(over.total_micros()), None);
    }
}
