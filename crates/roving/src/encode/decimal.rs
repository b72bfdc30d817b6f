//! Decimal floats: the shortest decimal `m * 10^e` (an `i32` mantissa)
//! that reads back as a given `f64`, for the decimal float record.

use crate::layout::*;

/// The shortest decimal `m * 10^e` that reads back as exactly `v`, if `m`
/// fits in `i32` and `|e| <= 22` (so [`f_dec_value`] is exact).
#[inline]
pub(super) fn short_decimal(v: f64) -> Option<(i32, i8)> {
    if !v.is_finite() || v == 0.0 {
        return None;
    }
    match short_decimal_fast(v) {
        Some(decided) => decided,
        None => short_decimal_ryu(v),
    }
}

/// [`short_decimal`] without formatting, for the common cases: an integral
/// value, or one with at most nine decimals. `None` when it cannot decide
/// (then the shortest decimal text decides).
///
/// The first `k` for which `round(v * 10^k) / 10^k == v` gives the shortest
/// decimal with at most `k` decimals that reads back as `v` (the division is
/// correctly rounded, as in [`f_dec_value`]), which is the shortest
/// round-tripping text (ryu's) stripped of trailing zeros.
#[inline]
fn short_decimal_fast(v: f64) -> Option<Option<(i32, i8)>> {
    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    // 1.5 * 2^52: for |x| < 2^51, `x + MAGIC` is `MAGIC + round(x)` (to
    // nearest, ties to even) exactly, one unit per bit pattern.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let a = v.abs();
    if a < 1.0e6 {
        // Integral (`v.trunc() == v` is a libm call on baseline x86-64).
        if (v + MAGIC) - MAGIC == v {
            return Some(decimal_fit(v as i64, 0, v));
        }
        // The shortest decimal in one step: for |v| < 10^6, v * 10^9 is
        // within 1/4 of m_k * 10^(9-k) (m_k at the first k that reads back
        // as v, if k <= 9), so it rounds to exactly that (whichever way
        // ties go: it is no tie); its trailing zeros give k. (The error is
        // below 0.06 from v's half ulp and 0.07 from the product's
        // rounding.) `|v * 10^9| < 10^15 < 2^51`, so the rounded value is
        // the difference of the bit patterns.
        let m = (v * 1e9 + MAGIC).to_bits() as i64 - MAGIC.to_bits() as i64;
        let mut u = m.unsigned_abs();
        let mut k = 9i8;
        // Three zeros at a time first (six decimals are common), then one.
        while k > 3 && u % 1000 == 0 {
            u /= 1000;
            k -= 3;
        }
        while k > 1 && u % 10 == 0 {
            u /= 10;
            k -= 1;
        }
        if let Ok(u) = i32::try_from(u) {
            let m = if m < 0 { -u } else { u };
            if f_dec_value(m, -k).to_bits() == v.to_bits() {
                return Some(Some((m, -k)));
            }
        }
        // The candidate is m_k if any k <= 9 reads back (see above), so
        // none does with an i32 mantissa: the loop below would try nine
        // divisions for nothing (most floats printed with 17 digits, as in
        // GeoJSON, end here). Ten decimals or more need a mantissa of at
        // least |v| * 10^10, which does not fit an i32 once |v| >= 0.25.
        return if a >= 0.25 { Some(None) } else { None };
    } else if a >= 4_503_599_627_370_496.0 || v as i64 as f64 == v {
        // Integral (every finite value from 2^52 up is).
        if a >= 9.0e18 {
            return None;
        }
        return Some(decimal_fit(v as i64, 0, v));
    }
    for (k, p) in POW10.iter().enumerate().skip(1) {
        let m = round_half_away(v * p);
        if m < i32::MIN as f64 || m > i32::MAX as f64 {
            break;
        }
        let e = -(k as i8);
        if f_dec_value(m as i32, e).to_bits() == v.to_bits() {
            return Some(Some((m as i32, e)));
        }
    }
    // Ten decimals or more need a mantissa of at least |v| * 10^10, which
    // does not fit an i32 once |v| >= 0.25.
    if a >= 0.25 {
        return Some(None);
    }
    None
}

/// `x.round()` (halves away from zero) for `|x| < 2^52`, without the libm
/// call that `f64::round` is on baseline x86-64; other `x` as `f64::round`.
#[inline]
fn round_half_away(x: f64) -> f64 {
    if x.abs() >= 4_503_599_627_370_496.0 || x.is_nan() {
        return x.round();
    }
    let t = x as i64 as f64; // truncated toward zero, exact here
    let frac = x - t; // exact: both are within 2^52 and t is x truncated
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// [`short_decimal`] from the shortest round-tripping decimal text.
#[inline(never)]
fn short_decimal_ryu(v: f64) -> Option<(i32, i8)> {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    let (mant, exp) = match text.iter().position(|&c| c == b'e') {
        Some(i) => (
            &text[..i],
            std::str::from_utf8(&text[i + 1..])
                .ok()?
                .parse::<i32>()
                .ok()?,
        ),
        None => (text, 0),
    };
    let mut m: i64 = 0;
    let mut e = exp;
    let mut after_point = false;
    let mut neg = false;
    for &c in mant {
        match c {
            b'-' => neg = true,
            b'.' => after_point = true,
            b'0'..=b'9' => {
                m = m.checked_mul(10)?.checked_add((c - b'0') as i64)?;
                if after_point {
                    e -= 1;
                }
            }
            _ => return None,
        }
    }
    decimal_fit(if neg { -m } else { m }, e, v)
}

/// `m * 10^e` without trailing zeros in `m`, if it fits a decimal float
/// record (i32 mantissa, exponent within range) and reads back as `v`.
fn decimal_fit(mut m: i64, mut e: i32, v: f64) -> Option<(i32, i8)> {
    while m != 0 && m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    let m = i32::try_from(m).ok()?;
    let e = i8::try_from(e)
        .ok()
        .filter(|e| e.unsigned_abs() <= F_DEC_MAX_EXP as u8)?;
    (f_dec_value(m, e).to_bits() == v.to_bits()).then_some((m, e))
}

#[cfg(test)]
mod decimal_tests {
    use super::{short_decimal_fast, short_decimal_ryu};

    fn check(v: f64) {
        if !v.is_finite() || v == 0.0 {
            return;
        }
        if let Some(fast) = short_decimal_fast(v) {
            assert_eq!(fast, short_decimal_ryu(v), "{v:e} ({:#x})", v.to_bits());
            DECIDED.with(|d| d.set(d.get() + 1));
        }
    }

    thread_local! {
        static DECIDED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The fast path decides exactly as the shortest decimal text does.
    #[test]
    fn fast_decimal_agrees_with_ryu() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next();
        for _ in 0..200_000 {
            let r = next();
            // Decimals with 0 to 12 places and up to 10 digits, their
            // neighbours one ulp away, and arbitrary bit patterns.
            let places = (r % 13) as i32;
            let m = (next() % 20_000_000_000) as i64 - 10_000_000_000;
            let v = m as f64 / 10f64.powi(places);
            check(v);
            check(f64::from_bits(v.to_bits().wrapping_add(1)));
            check(f64::from_bits(v.to_bits().wrapping_sub(1)));
            check(f64::from_bits(next()));
            check((next() % 1_000_000_000_000) as f64 * 10f64.powi((r % 12) as i32));
        }
        for v in [
            0.5,
            0.25,
            0.1,
            0.3,
            2147483647.0,
            2147483648.0,
            214748364.8,
            214748364.7,
            1e22,
            1e23,
            9.0e18,
            -1.5,
            0.2147483647,
            0.24999999999,
        ] {
            check(v);
            check(-v);
        }
        // The fast path decides most of these (else the test proves little).
        assert!(DECIDED.with(|d| d.get()) > 500_000);
    }
}
