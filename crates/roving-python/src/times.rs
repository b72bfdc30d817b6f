//! `datetime.time` and `datetime.timedelta` as extension values
//! ([`EXT_TIME`](crate::pytypes::EXT_TIME),
//! [`EXT_TIMEDELTA`](crate::pytypes::EXT_TIMEDELTA)): their payloads (built
//! and strictly checked), their JSON text, and the text typed `loads`
//! reads them from.
//!
//! * time: microseconds since midnight (`u64` LE, below 86,400,000,000),
//!   `fold` (`u8`, 0 or 1), then for an aware time its UTC offset in
//!   microseconds (`i64` LE, strictly between -86,400,000,000 and
//!   86,400,000,000): 9 bytes naive, 17 bytes aware.
//! * timedelta: whole seconds, rounded down (`i64` LE), then microseconds
//!   (`u32` LE, below 1,000,000): 12 bytes, within `timedelta.min ..=
//!   timedelta.max` (-999,999,999 days to 999,999,999 days 86,399.999999 s).
//!
//! Every value of either type has exactly one payload, and every payload
//! these checks accept is one value.

/// Microseconds in a day.
pub(crate) const US_PER_DAY: u64 = 86_400_000_000;
/// The seconds of `timedelta.min` and `timedelta.max` (its microseconds
/// are 0 and 999,999).
pub(crate) const DELTA_MIN_SECONDS: i64 = -999_999_999 * 86_400;
pub(crate) const DELTA_MAX_SECONDS: i64 = 999_999_999 * 86_400 + 86_399;

/// A time of day, naive or at a fixed UTC offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimeOfDay {
    /// Microseconds since midnight, below [`US_PER_DAY`].
    pub(crate) micros: u64,
    pub(crate) fold: bool,
    /// UTC offset in microseconds (|offset| < [`US_PER_DAY`]), `None` if naive.
    pub(crate) offset: Option<i64>,
}

impl TimeOfDay {
    /// Hour, minute, second and microsecond.
    pub(crate) fn fields(&self) -> (u8, u8, u8, u32) {
        let s = self.micros / 1_000_000;
        (
            (s / 3600) as u8,
            (s / 60 % 60) as u8,
            (s % 60) as u8,
            (self.micros % 1_000_000) as u32,
        )
    }

    /// The `EXT_TIME` payload.
    pub(crate) fn payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(17);
        out.extend_from_slice(&self.micros.to_le_bytes());
        out.push(self.fold as u8);
        if let Some(o) = self.offset {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out
    }

    /// `time.isoformat()`: `HH:MM:SS[.ffffff]`, then for an aware time
    /// `±HH:MM[:SS[.ffffff]]` (the offset's seconds and microseconds when
    /// not zero). `fold` is not shown (nor read back from text).
    pub(crate) fn iso(&self) -> String {
        let mut out = hms(self.micros, false);
        if let Some(o) = self.offset {
            out.push(if o < 0 { '-' } else { '+' });
            out.push_str(&hms(o.unsigned_abs(), true));
        }
        out
    }
}

/// `HH:MM:SS[.ffffff]` of microseconds (`short`: `HH:MM`, seconds and
/// microseconds only when not zero, as Python writes UTC offsets).
fn hms(us: u64, short: bool) -> String {
    let s = us / 1_000_000;
    let frac = us % 1_000_000;
    let mut out = format!("{:02}:{:02}", s / 3600, s / 60 % 60);
    if !short || s % 60 != 0 || frac != 0 {
        out.push_str(&format!(":{:02}", s % 60));
    }
    if frac != 0 {
        out.push_str(&format!(".{frac:06}"));
    }
    out
}

/// The time of an `EXT_TIME` payload, or why it is none.
pub(crate) fn time_payload(data: &[u8]) -> Result<TimeOfDay, &'static str> {
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

/// A timedelta: whole seconds (rounded down) and microseconds (0..1,000,000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delta {
    pub(crate) seconds: i64,
    pub(crate) micros: u32,
}

impl Delta {
    /// From `timedelta`'s own fields (days, seconds 0..86,400, microseconds
    /// 0..1,000,000).
    pub(crate) fn from_fields(days: i32, seconds: i32, micros: i32) -> Delta {
        Delta {
            seconds: days as i64 * 86_400 + seconds as i64,
            micros: micros as u32,
        }
    }

    /// `timedelta`'s fields: days, seconds (0..86,400), microseconds.
    pub(crate) fn fields(&self) -> (i32, i32, i32) {
        (
            self.seconds.div_euclid(86_400) as i32,
            self.seconds.rem_euclid(86_400) as i32,
            self.micros as i32,
        )
    }

    /// The `EXT_TIMEDELTA` payload.
    pub(crate) fn payload(&self) -> [u8; 12] {
        let mut out = [0; 12];
        out[..8].copy_from_slice(&self.seconds.to_le_bytes());
        out[8..].copy_from_slice(&self.micros.to_le_bytes());
        out
    }

    /// From a count of microseconds, if `timedelta` can hold it.
    fn from_micros(us: i128) -> Option<Delta> {
        let d = Delta {
            seconds: i64::try_from(us.div_euclid(1_000_000)).ok()?,
            micros: us.rem_euclid(1_000_000) as u32,
        };
        (DELTA_MIN_SECONDS..=DELTA_MAX_SECONDS)
            .contains(&d.seconds)
            .then_some(d)
    }

    /// ISO 8601 duration text as msgspec writes it: `[-]P[nD][T<s>[.f]S]`
    /// of the absolute value, days and seconds below a day (no hours or
    /// minutes), the fraction without trailing zeros; zero is `P0D`.
    pub(crate) fn iso(&self) -> String {
        let us = self.seconds as i128 * 1_000_000 + self.micros as i128;
        if us == 0 {
            return "P0D".into();
        }
        let abs = us.unsigned_abs();
        let days = abs / US_PER_DAY as u128;
        let rest = abs % US_PER_DAY as u128;
        let mut out = String::from(if us < 0 { "-P" } else { "P" });
        if days != 0 {
            out.push_str(&format!("{days}D"));
        }
        if rest != 0 {
            out.push_str(&format!("T{}", rest / 1_000_000));
            let frac = rest % 1_000_000;
            if frac != 0 {
                let f = format!("{frac:06}");
                out.push('.');
                out.push_str(f.trim_end_matches('0'));
            }
            out.push('S');
        }
        out
    }
}

/// The timedelta of an `EXT_TIMEDELTA` payload, or why it is none.
pub(crate) fn timedelta_payload(data: &[u8]) -> Result<Delta, &'static str> {
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

/// Reads ASCII digits at the start of `s`: their value (`None` past
/// `u64`) and count.
fn digits(s: &[u8]) -> (Option<u64>, usize) {
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let v = s[..n].iter().try_fold(0u64, |v, &c| {
        v.checked_mul(10)?.checked_add((c - b'0') as u64)
    });
    (v, n)
}

/// Exactly two digits, at most `max`.
fn two(s: &[u8], max: u64) -> Option<u64> {
    match s {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            let v = ((a - b'0') * 10 + (b - b'0')) as u64;
            (v <= max).then_some(v)
        }
        _ => None,
    }
}

/// A fraction of a second, `.` and 1 to 6 digits, in microseconds.
fn fraction(s: &[u8]) -> Option<u64> {
    let d = s.strip_prefix(b".")?;
    let (v, n) = digits(d);
    if n != d.len() || !(1..=6).contains(&n) {
        return None;
    }
    Some(v? * 10u64.pow(6 - n as u32))
}

/// `HH:MM:SS[.f]` (`short`: `HH:MM[:SS[.f]]`) in microseconds.
fn clock(s: &[u8], short: bool) -> Option<u64> {
    let h = two(s.get(..2)?, 23)?;
    if s.get(2) != Some(&b':') {
        return None;
    }
    let m = two(s.get(3..5)?, 59)?;
    let rest = s.get(5..)?;
    let (sec, frac) = if short && rest.is_empty() {
        (0, 0)
    } else {
        if rest.first() != Some(&b':') {
            return None;
        }
        let sec = two(rest.get(1..3)?, 59)?;
        let frac = match rest.get(3..)? {
            [] => 0,
            f => fraction(f)?,
        };
        (sec, frac)
    };
    Some(((h * 60 + m) * 60 + sec) * 1_000_000 + frac)
}

/// A time from ISO 8601 text: `HH:MM:SS[.f]` (1 to 6 fraction digits),
/// then nothing (naive), `Z`, or a UTC offset `±HH:MM[:SS[.f]]` below a
/// day: what `time.isoformat()` writes, and the `Z` and short fractions of
/// RFC 3339 (msgspec's form). The fold is 0.
pub(crate) fn parse_time(s: &str) -> Option<TimeOfDay> {
    let b = s.as_bytes();
    let end = b
        .iter()
        .position(|&c| matches!(c, b'Z' | b'+' | b'-'))
        .unwrap_or(b.len());
    let micros = clock(&b[..end], false)?;
    let offset = match &b[end..] {
        [] => None,
        [b'Z'] => Some(0),
        [sign @ (b'+' | b'-'), off @ ..] => {
            let o = clock(off, true)? as i64;
            Some(if *sign == b'-' { -o } else { o })
        }
        _ => return None,
    };
    Some(TimeOfDay {
        micros,
        fold: false,
        offset,
    })
}

/// One `n[.f]<unit>` part at the start of `b`, its unit one of `units`
/// (a fraction, 1 to 6 digits, on seconds only): its microseconds, the
/// unit's index in `units` and the rest; `Ok(None)` if `b` does not start
/// with a digit, `Err` if the part is malformed.
type Part<'b> = Result<Option<(i128, usize, &'b [u8])>, ()>;

fn duration_part<'b>(b: &'b [u8], units: &[(u8, u64)]) -> Part<'b> {
    let (v, n) = digits(b);
    if n == 0 {
        return Ok(None);
    }
    // (More than u64::MAX of any unit is outside timedelta's range.)
    let v = v.ok_or(())? as i128;
    let mut rest = &b[n..];
    let mut frac = None;
    if rest.first() == Some(&b'.') {
        let k = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        frac = Some(fraction(&rest[..1 + k]).ok_or(())? as i128);
        rest = &rest[1 + k..];
    }
    let i = units
        .iter()
        .position(|(u, _)| rest.first() == Some(u))
        .ok_or(())?;
    if frac.is_some() && units[i].0 != b'S' {
        return Err(());
    }
    Ok(Some((
        v * units[i].1 as i128 + frac.unwrap_or(0),
        i,
        &rest[1..],
    )))
}

/// A timedelta from an ISO 8601 duration: `[-]P[nD][T[nH][nM][n[.f]S]]`
/// with at least one part (and one after `T`), whole numbers of ASCII
/// digits, a fraction (1 to 6 digits) on the seconds only, upper case:
/// what msgspec writes (`P1DT2.5S`) and the hours and minutes of other
/// writers (`PT1H30M`); `None` if malformed or outside `timedelta`'s range.
pub(crate) fn parse_timedelta(s: &str) -> Option<Delta> {
    let b = s.as_bytes();
    let (neg, b) = match b.strip_prefix(b"-") {
        Some(r) => (true, r),
        None => (false, b),
    };
    let mut b = b.strip_prefix(b"P")?;
    let mut us: i128 = 0;
    let mut any = false;
    if let Some((v, _, rest)) = duration_part(b, &[(b'D', US_PER_DAY)]).ok()? {
        us += v;
        b = rest;
        any = true;
    }
    if let Some(t) = b.strip_prefix(b"T") {
        b = t;
        let mut units: &[(u8, u64)] =
            &[(b'H', 3_600_000_000), (b'M', 60_000_000), (b'S', 1_000_000)];
        let mut timed = false;
        while let Some((v, i, rest)) = duration_part(b, units).ok()? {
            us += v;
            b = rest;
            units = &units[i + 1..];
            timed = true;
        }
        if !timed {
            return None;
        }
        any = true;
    }
    if !b.is_empty() || !any {
        return None;
    }
    Delta::from_micros(if neg { -us } else { us })
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
    fn timedelta_text() {
        let d = |s, us| Delta {
            seconds: s,
            micros: us,
        };
        assert_eq!(d(0, 0).iso(), "P0D");
        assert_eq!(d(-1, 999_999).iso(), "-PT0.000001S");
        assert_eq!(d(86_402, 3).iso(), "P1DT2.000003S");
        assert_eq!(d(DELTA_MIN_SECONDS, 0).iso(), "-P999999999D");
        assert_eq!(
            d(DELTA_MAX_SECONDS, 999_999).iso(),
            "P999999999DT86399.999999S"
        );
        for x in [
            d(0, 0),
            d(-1, 999_999),
            d(DELTA_MIN_SECONDS, 0),
            d(5, 100_000),
        ] {
            assert_eq!(parse_timedelta(&x.iso()), Some(x));
        }
        assert_eq!(parse_timedelta("PT1H30M"), Some(d(5400, 0)));
        for bad in ["", "P", "PT", "P1DT", "PT1M1H", "PT1.5M", "P1.5D", "PT1S1S"] {
            assert_eq!(parse_timedelta(bad), None, "{bad}");
        }
    }

    #[test]
    fn time_text() {
        let t = parse_time("01:02:03.5-00:00:00.000001").unwrap();
        assert_eq!(t.iso(), "01:02:03.500000-00:00:00.000001");
        assert_eq!(parse_time("23:59:59Z").unwrap().offset, Some(0));
        for bad in [
            "01:02",
            "1:02:03",
            "24:00:00",
            "01:02:03+24:00",
            "01:02:03+01",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
