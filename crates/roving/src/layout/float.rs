//! Float payloads: decimal floats (`20`) and the exact conversions between
//! binary32 and binary64 that `08` records rely on.

/// The value of a decimal float record.
#[inline]
pub fn f_dec_value(mantissa: i32, exp: i8) -> f64 {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let p = POW10[(exp.unsigned_abs() as usize).min(22)];
    if exp < 0 {
        mantissa as f64 / p
    } else {
        mantissa as f64 * p
    }
}

/// Widens a binary32 to binary64 bit-exactly, NaN payloads included (a plain
/// `as f64` may set the quiet bit of a signalling NaN).
#[inline]
pub fn f32_to_f64_exact(f: f32) -> f64 {
    if !f.is_nan() {
        return f as f64;
    }
    let b = f.to_bits() as u64;
    f64::from_bits(((b >> 31) << 63) | (0x7FF << 52) | ((b & 0x7F_FFFF) << 29))
}

/// Narrows a binary64 to binary32 if that is exact, NaN payloads included
/// (the inverse of [`f32_to_f64_exact`]); `None` if it would round.
#[inline]
pub fn f64_to_f32_exact(f: f64) -> Option<f32> {
    if !f.is_nan() {
        let n = f as f32;
        return (n as f64 == f).then_some(n);
    }
    let b = f.to_bits();
    if b & ((1 << 29) - 1) != 0 {
        return None;
    }
    let m = (b >> 29) & 0x7F_FFFF;
    Some(f32::from_bits(
        ((b >> 63) << 31) as u32 | 0x7F80_0000 | m as u32,
    ))
}
