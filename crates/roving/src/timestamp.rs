//! Timestamps: an instant with nanosecond precision and an optional UTC offset.

/// An instant (seconds and nanoseconds since 1970-01-01T00:00:00Z) with an
/// optional UTC offset in seconds, as recorded by the writer.
///
/// The offset does not change the instant; it says which local time the
/// writer meant (`2024-01-01T09:00:00+09:00` and `2024-01-01T00:00:00Z` are
/// the same instant with different offsets). Offset 0 is UTC (`Z`). A
/// timestamp without an offset (`offset: None`, record `0A`) is a date and
/// time with no offset, such as a naive Python `datetime`: its text has no
/// offset (`2024-01-01T09:00:00`), and its seconds count as if it were UTC.
///
/// Timestamps are equal when instant and offset are, and they order by
/// instant, then by offset (none first), so that sorting agrees with `==`:
///
/// ```
/// use roving::Timestamp;
/// let utc: Timestamp = "2024-01-01T00:00:00Z".parse()?;
/// let tokyo: Timestamp = "2024-01-01T09:00:00+09:00".parse()?; // the same instant
/// let later: Timestamp = "2024-01-01T00:00:01Z".parse()?;
/// assert!(utc != tokyo && utc < tokyo && tokyo < later);
/// let mut v = vec![later, tokyo, utc];
/// v.sort();
/// assert_eq!(v, [utc, tokyo, later]);
/// # Ok::<(), roving::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    ///
    /// ```
    /// use roving::Timestamp;
    /// let t = Timestamp::new(1_700_000_000, 500_000_000, Some(-5 * 3600)).unwrap();
    /// assert_eq!(t.to_rfc3339(), "2023-11-14T17:13:20.500-05:00");
    /// assert!(Timestamp::new(0, 1_000_000_000, None).is_none()); // nanos out of range
    /// let mut enc = roving::Encoder::new();
    /// enc.timestamp(t)?;
    /// let bytes = enc.finish()?;
    /// assert_eq!(roving::Document::open(&bytes)?.root().as_timestamp(), Some(t));
    /// # Ok::<(), roving::Error>(())
    /// ```
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

    /// RFC 3339 text, in the recorded offset (`Z` for offset 0, nothing
    /// without an offset: `2024-01-01T09:00:00`, a local date and time as
    /// in ISO 8601), with as many fraction digits as needed (none, 3, 6 or 9).
    /// Years outside 0000..=9999 are written with a sign and at least four
    /// digits (`+10000-01-01T00:00:00Z`, `-0001-12-31T23:59:59`), and
    /// offsets that are not whole minutes as `+HH:MM:SS`: both go beyond
    /// RFC 3339, which has neither.
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
            None => {}
            Some(0) => s.push('Z'),
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

/// RFC 3339 text, as [`Timestamp::to_rfc3339`] writes it.
///
/// ```
/// let t = roving::Timestamp::new(1_700_000_000, 0, Some(3600)).unwrap();
/// assert_eq!(t.to_string(), "2023-11-14T23:13:20+01:00");
/// ```
impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

/// The error of a timestamp that `SystemTime` cannot hold (or of
/// `nanos` out of range).
fn not_a_system_time(seconds: i64, nanos: u32) -> crate::Error {
    crate::Error::new(crate::ErrorKind::Unsupported).with_message(format!(
        "timestamp {seconds} s + {nanos} ns is out of the range of SystemTime"
    ))
}

/// The instant of a `SystemTime`, in UTC (offset 0, `Z`: a `SystemTime`
/// is an instant), exact to the nanosecond; an error if its seconds do
/// not fit in an `i64`.
///
/// ```
/// use std::time::SystemTime;
/// let now = SystemTime::now();
/// let t = roving::Timestamp::try_from(now)?;
/// assert_eq!(SystemTime::try_from(t)?, now);
/// # Ok::<(), roving::Error>(())
/// ```
impl TryFrom<std::time::SystemTime> for Timestamp {
    type Error = crate::Error;

    fn try_from(t: std::time::SystemTime) -> crate::Result<Timestamp> {
        let (seconds, nanos) = match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => (i64::try_from(d.as_secs()).ok(), d.subsec_nanos()),
            Err(before) => {
                // `d` before the epoch: -secs - 1 and the rest of a second
                // (-secs itself may be i64::MIN, whose secs is no i64).
                let d = before.duration();
                let s = 0i64.checked_sub_unsigned(d.as_secs());
                match d.subsec_nanos() {
                    0 => (s, 0),
                    n => (s.and_then(|s| s.checked_sub(1)), 1_000_000_000 - n),
                }
            }
        };
        seconds
            .and_then(|s| Timestamp::new(s, nanos, Some(0)))
            .ok_or_else(|| {
                crate::Error::new(crate::ErrorKind::Unsupported)
                    .with_message("SystemTime out of the range of a timestamp (i64 seconds)")
            })
    }
}

/// The instant as a `SystemTime` (the offset does not change the
/// instant and is dropped); an error if the platform's `SystemTime`
/// cannot hold it, or if `nanos` is out of range (the fields are public).
///
/// ```
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
/// let t = roving::Timestamp::new(-1, 500_000_000, Some(3600)).unwrap();
/// assert_eq!(SystemTime::try_from(t)?, UNIX_EPOCH - Duration::from_millis(500));
/// # Ok::<(), roving::Error>(())
/// ```
impl TryFrom<Timestamp> for std::time::SystemTime {
    type Error = crate::Error;

    fn try_from(t: Timestamp) -> crate::Result<std::time::SystemTime> {
        use std::time::{Duration, UNIX_EPOCH};
        let bad = || not_a_system_time(t.seconds, t.nanos);
        if t.nanos > Timestamp::MAX_NANOS {
            return Err(bad());
        }
        let whole = Duration::from_secs(t.seconds.unsigned_abs());
        let at = if t.seconds >= 0 {
            UNIX_EPOCH.checked_add(whole)
        } else {
            UNIX_EPOCH.checked_sub(whole)
        };
        at.and_then(|at| at.checked_add(Duration::from_nanos(u64::from(t.nanos))))
            .ok_or_else(bad)
    }
}

impl std::str::FromStr for Timestamp {
    type Err = crate::Error;

    /// Parses RFC 3339 text as [`Timestamp::to_rfc3339`] writes it (and
    /// any other RFC 3339 timestamp): `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction of up to nine digits, then `Z` (UTC: `offset` is
    /// `Some(0)`), `+HH:MM` / `-HH:MM`, optionally `:SS`, or nothing (no
    /// offset, as `to_rfc3339` writes a timestamp without one: `offset`
    /// is `None`; ISO 8601's local time, beyond RFC 3339). A year may also
    /// be a sign and four or more digits (`+10000-01-01T...`,
    /// `-0001-12-31T...`), as `to_rfc3339` writes years outside
    /// 0000..=9999; `t` and `z` may be lower case. Leap seconds (`:60`)
    /// are refused.
    ///
    /// ```
    /// use roving::Timestamp;
    /// let t: Timestamp = "2023-11-14T23:13:20.123+01:00".parse()?;
    /// assert_eq!(t, Timestamp::new(1_700_000_000, 123_000_000, Some(3600)).unwrap());
    /// assert_eq!(t.to_rfc3339().parse::<Timestamp>()?, t);
    /// # Ok::<(), roving::Error>(())
    /// ```
    fn from_str(text: &str) -> crate::Result<Timestamp> {
        parse_rfc3339(text.as_bytes()).ok_or_else(|| {
            crate::Error::new(crate::ErrorKind::Unsupported)
                .with_message(format!("not an RFC 3339 timestamp: {text:?}"))
        })
    }
}

/// [`Timestamp::from_str`](std::str::FromStr::from_str).
fn parse_rfc3339(b: &[u8]) -> Option<Timestamp> {
    /// The number of `n` ASCII digits at `b[*i..]`, moving `i` past them.
    fn digits(b: &[u8], i: &mut usize, n: usize) -> Option<u32> {
        let d = b.get(*i..*i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        Some(d.iter().fold(0, |v, &c| v * 10 + (c - b'0') as u32))
    }
    fn byte(b: &[u8], i: &mut usize, want: u8) -> Option<()> {
        (b.get(*i) == Some(&want)).then(|| *i += 1)
    }
    let mut i = 0;
    // Year: four digits, or a sign and four or more.
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => 0,
    };
    if sign != 0 {
        i += 1;
    }
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let n = i - start;
    if n < 4 || (sign == 0 && n != 4) || n > 18 {
        return None;
    }
    let year: i64 = std::str::from_utf8(&b[start..i]).ok()?.parse().ok()?;
    let year = if sign < 0 { -year } else { year };
    byte(b, &mut i, b'-')?;
    let month = digits(b, &mut i, 2)?;
    byte(b, &mut i, b'-')?;
    let day = digits(b, &mut i, 2)?;
    match b.get(i)? {
        b'T' | b't' => i += 1,
        _ => return None,
    }
    let hour = digits(b, &mut i, 2)?;
    byte(b, &mut i, b':')?;
    let minute = digits(b, &mut i, 2)?;
    byte(b, &mut i, b':')?;
    let second = digits(b, &mut i, 2)?;
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut nanos = 0u32;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let n = i - start;
        if n == 0 || n > 9 {
            return None;
        }
        let frac = digits(b, &mut { start }, n)?;
        nanos = frac * 10u32.pow(9 - n as u32);
    }
    let offset = match b.get(i) {
        None => None,
        Some(b'Z' | b'z') => {
            i += 1;
            Some(0)
        }
        Some(&c @ (b'+' | b'-')) => {
            i += 1;
            let h = digits(b, &mut i, 2)?;
            byte(b, &mut i, b':')?;
            let m = digits(b, &mut i, 2)?;
            let s = if b.get(i) == Some(&b':') {
                i += 1;
                digits(b, &mut i, 2)?
            } else {
                0
            };
            if h > 23 || m > 59 || s > 59 {
                return None;
            }
            let o = (h * 3600 + m * 60 + s) as i32;
            Some(if c == b'-' { -o } else { o })
        }
        _ => return None,
    };
    if i != b.len() {
        return None;
    }
    let days = days_from_civil(year, month, day)?;
    // A day past its month's end (Feb 30, Feb 29 of a common year) counts
    // on into the next month: the date is real only if it comes back.
    if civil_from_days(days) != (year, month, day) {
        return None;
    }
    let local = (days as i128) * 86_400 + (hour * 3600 + minute * 60 + second) as i128;
    let seconds = i64::try_from(local - offset.unwrap_or(0) as i128).ok()?;
    Timestamp::new(seconds, nanos, offset)
}

/// Proleptic Gregorian (year, month 1..=12, day 1..=31) to days since
/// 1970-01-01 (Howard Hinnant's `days_from_civil`); `None` for a year
/// beyond ±2^54 (far beyond any [`Timestamp`]), whose day count the
/// arithmetic could not hold. The month and day are not checked: a day
/// past its month's end counts on into the next month (February 30 is
/// March 1 or 2), and a month outside 1..=12 gives a day of no meaning
/// (never a panic); [`civil_from_days`] of the result gives the date back
/// exactly when it was real.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> Option<i64> {
    if y.unsigned_abs() >= 1 << 54 {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day)
/// (Howard Hinnant's `civil_from_days`), for every `i64` day count.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    // In i128: `z + 719_468` overflows an i64 near its end; the year
    // (about z / 365) always fits one.
    let z = z as i128 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((if m <= 2 { y + 1 } else { y }) as i64, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The public calendar helpers never panic (these overflowed in debug
    /// builds before): a year past ±2^54 has no day count, every day count
    /// has a date, and dates at the ends of the range come back.
    #[test]
    fn calendar_helpers_take_every_input() {
        for y in [i64::MIN, i64::MAX, 1 << 54, -(1 << 54)] {
            assert_eq!(days_from_civil(y, 1, 1), None, "{y}");
        }
        for y in [(1 << 54) - 1, 1 - (1 << 54), 0, -1] {
            for (m, d) in [(0, 0), (u32::MAX, u32::MAX), (1, 1), (12, 31)] {
                let days = days_from_civil(y, m, d);
                assert!(days.is_some(), "{y} {m} {d}");
                if (1..=12).contains(&m) && (1..=28).contains(&d) {
                    assert_eq!(days.map(civil_from_days), Some((y, m, d)));
                }
            }
        }
        for z in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 719_468, -1, 0] {
            let (y, m, d) = civil_from_days(z);
            assert!((1..=12).contains(&m) && (1..=31).contains(&d), "{z}");
            if y.unsigned_abs() < 1 << 54 {
                assert_eq!(days_from_civil(y, m, d), Some(z), "{z}");
            }
        }
    }

    #[test]
    fn rfc3339() {
        let t = Timestamp::new(0, 0, None).unwrap();
        assert_eq!(t.to_rfc3339(), "1970-01-01T00:00:00");
        let t = Timestamp::new(0, 0, Some(0)).unwrap();
        assert_eq!(t.to_rfc3339(), "1970-01-01T00:00:00Z");
        let t = Timestamp::new(1_700_000_000, 123_000_000, Some(3600)).unwrap();
        assert_eq!(t.to_rfc3339(), "2023-11-14T23:13:20.123+01:00");
        let t = Timestamp::new(-1, 1, Some(-1800)).unwrap();
        assert_eq!(t.to_rfc3339(), "1969-12-31T23:29:59.000000001-00:30");
        assert!(Timestamp::new(0, 1_000_000_000, None).is_none());
    }

    /// Parsing reads back what `to_rfc3339` writes, for instants across
    /// the whole i64 range of seconds, every fraction length and offsets
    /// with and without seconds; malformed text is refused.
    #[test]
    fn rfc3339_parses_back() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next();
        let mut cases = vec![
            Timestamp::new(0, 0, None).unwrap(),
            Timestamp::new(0, 0, Some(0)).unwrap(),
            Timestamp::new(i64::MAX, Timestamp::MAX_NANOS, None).unwrap(),
            Timestamp::new(i64::MIN, 0, None).unwrap(),
            Timestamp::new(i64::MAX - 86_399, 1, Some(86_399)).unwrap(),
            Timestamp::new(i64::MIN + 86_399, 1, Some(-86_399)).unwrap(),
            Timestamp::new(-62_135_596_800, 0, None).unwrap(), // 0001-01-01
            Timestamp::new(-62_167_219_200, 0, None).unwrap(), // 0000-01-01
            Timestamp::new(-62_167_219_201, 0, None).unwrap(), // -0001-12-31
            Timestamp::new(253_402_300_800, 0, Some(-1)).unwrap(), // 10000-01-01
            Timestamp::new(951_782_400, 0, None).unwrap(),     // 2000-02-29
        ];
        for _ in 0..20_000 {
            let seconds = match next() % 3 {
                0 => next() as i64,
                1 => (next() % 20_000_000_000) as i64 - 10_000_000_000,
                _ => (next() % 400_000_000) as i64,
            };
            let nanos = match next() % 4 {
                0 => 0,
                1 => (next() % 1000) as u32 * 1_000_000,
                2 => (next() % 1_000_000) as u32 * 1_000,
                _ => (next() % 1_000_000_000) as u32,
            };
            let offset = match next() % 3 {
                0 => None,
                1 => Some((next() % 48) as i32 * 1800 - 43_200),
                _ => Some((next() % 172_799) as i32 - 86_399),
            };
            cases.extend(Timestamp::new(seconds, nanos, offset));
        }
        for t in cases {
            let text = t.to_rfc3339();
            assert_eq!(text.parse::<Timestamp>().ok(), Some(t), "{text}");
        }
        let t: Timestamp = "1985-04-12t23:20:50.52z".parse().unwrap();
        assert_eq!(
            (t.seconds, t.nanos, t.offset),
            (482_196_050, 520_000_000, Some(0))
        );
        // No offset: a date and time without one (what `to_rfc3339`
        // writes for `offset: None`); `+00:00` and `-00:00` are UTC.
        let t: Timestamp = "2023-11-14T23:13:20".parse().unwrap();
        assert_eq!((t.seconds, t.offset), (1_700_003_600, None));
        for utc in ["2023-11-14T23:13:20+00:00", "2023-11-14T23:13:20-00:00"] {
            let t: Timestamp = utc.parse().unwrap();
            assert_eq!((t.seconds, t.offset), (1_700_003_600, Some(0)), "{utc}");
        }
        let t: Timestamp = "1996-12-19T16:39:57-08:00".parse().unwrap();
        assert_eq!((t.seconds, t.offset), (851_042_397, Some(-28_800)));
        for bad in [
            "",
            "2023-11-14",
            "2023-11-14T23:13",
            "2023-11-14T23:13:20.",
            "2023-11-14 23:13:20Z",
            "23-11-14T23:13:20Z",
            "02023-11-14T23:13:20Z",
            "2023-13-14T23:13:20Z",
            "2023-02-29T00:00:00Z",
            "2023-11-31T00:00:00Z",
            "2023-11-14T24:00:00Z",
            "2023-11-14T23:60:00Z",
            "2023-11-14T23:13:60Z",
            "2023-11-14T23:13:20.Z",
            "2023-11-14T23:13:20.1234567890Z",
            "2023-11-14T23:13:20+24:00",
            "2023-11-14T23:13:20+01",
            "2023-11-14T23:13:20+0100",
            "2023-11-14T23:13:20Zx",
            "+99999999999999999999-01-01T00:00:00Z",
            "+292277026597-01-01T00:00:00Z",
            "2023-11-14T23:13:2OZ",
        ] {
            assert!(bad.parse::<Timestamp>().is_err(), "{bad}");
        }
    }

    #[test]
    fn calendar_round_trip() {
        for days in [-800_000i64, -719_468, -1, 0, 1, 11_016, 19_723, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), Some(days));
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 3, 1), Some(11_017));
    }
}
