//! `datetime.time` and `datetime.timedelta` as extension values
//! ([`EXT_TIME`](crate::pytypes::EXT_TIME),
//! [`EXT_TIMEDELTA`](crate::pytypes::EXT_TIMEDELTA)): their JSON text, and
//! the text typed `loads` reads them from. Their payloads (built and
//! strictly checked) are the core's ([`roving::layout::ext`]).

pub(crate) use roving::layout::ext::{
    time_payload, timedelta_payload, Delta, TimeOfDay, US_PER_DAY,
};

/// `time.isoformat()`: `HH:MM:SS[.ffffff]`, then for an aware time
/// `±HH:MM[:SS[.ffffff]]` (the offset's seconds and microseconds when
/// not zero). `fold` is not shown (nor read back from text).
pub(crate) fn time_iso(t: &TimeOfDay) -> String {
    let mut out = hms(t.micros, false);
    if let Some(o) = t.offset {
        out.push(if o < 0 { '-' } else { '+' });
        out.push_str(&hms(o.unsigned_abs(), true));
    }
    out
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

/// ISO 8601 duration text as msgspec writes it: `[-]P[nD][T<s>[.f]S]`
/// of the absolute value, days and seconds below a day (no hours or
/// minutes), the fraction without trailing zeros; zero is `P0D`.
pub(crate) fn delta_iso(d: &Delta) -> String {
    let us = d.total_micros();
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
    use roving::layout::ext::{DELTA_MAX_SECONDS, DELTA_MIN_SECONDS};

    #[test]
    fn timedelta_text() {
        let d = |s, us| Delta {
            seconds: s,
            micros: us,
        };
        assert_eq!(delta_iso(&d(0, 0)), "P0D");
        assert_eq!(delta_iso(&d(-1, 999_999)), "-PT0.000001S");
        assert_eq!(delta_iso(&d(86_402, 3)), "P1DT2.000003S");
        assert_eq!(delta_iso(&d(DELTA_MIN_SECONDS, 0)), "-P999999999D");
        assert_eq!(
            delta_iso(&d(DELTA_MAX_SECONDS, 999_999)),
            "P999999999DT86399.999999S"
        );
        for x in [
            d(0, 0),
            d(-1, 999_999),
            d(DELTA_MIN_SECONDS, 0),
            d(5, 100_000),
        ] {
            assert_eq!(parse_timedelta(&delta_iso(&x)), Some(x));
        }
        assert_eq!(parse_timedelta("PT1H30M"), Some(d(5400, 0)));
        for bad in ["", "P", "PT", "P1DT", "PT1M1H", "PT1.5M", "P1.5D", "PT1S1S"] {
            assert_eq!(parse_timedelta(bad), None, "{bad}");
        }
    }

    #[test]
    fn time_text() {
        let t = parse_time("01:02:03.5-00:00:00.000001").unwrap();
        assert_eq!(time_iso(&t), "01:02:03.500000-00:00:00.000001");
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
