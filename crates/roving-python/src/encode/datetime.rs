//! Writing datetimes, times and `numpy.datetime64` scalars.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDateTime, PyDelta, PyTime};

use roving::Timestamp;

use crate::pytypes::{self, EXT_TIME};
use crate::times;

use super::failure::{fail_msg, EncodeResult};
use super::State;

impl<'py> State<'py, '_> {
    pub(super) fn datetime(&mut self, dt: &Bound<'py, PyDateTime>) -> EncodeResult {
        use pyo3::types::{PyDateAccess, PyDeltaAccess, PyTimeAccess, PyTzInfo, PyTzInfoAccess};
        let py = self.py;
        let offset = match dt.get_tzinfo() {
            None => None,
            // `datetime.timezone.utc`, the common case: no `utcoffset()` call.
            Some(tz) if PyTzInfo::utc(py).is_ok_and(|u| u.as_ptr() == tz.as_ptr()) => Some(0),
            Some(_) => {
                let u = dt.call_method0(pyo3::intern!(py, "utcoffset"))?;
                if u.is_none() {
                    None
                } else {
                    let d = u.cast::<PyDelta>().map_err(PyErr::from)?;
                    if d.get_microseconds() != 0 {
                        return Err(fail_msg(
                            "cannot encode a UTC offset with microseconds".into(),
                        ));
                    }
                    Some(d.get_days() as i64 * 86_400 + d.get_seconds() as i64)
                }
            }
        };
        let days = pytypes::days_from_civil(
            dt.get_year() as i64,
            dt.get_month() as u32,
            dt.get_day() as u32,
        );
        let secs = days * 86_400
            + dt.get_hour() as i64 * 3600
            + dt.get_minute() as i64 * 60
            + dt.get_second() as i64
            - offset.unwrap_or(0);
        let off = match offset {
            Some(o) => {
                Some(i32::try_from(o).map_err(|_| fail_msg("UTC offset out of range".into()))?)
            }
            None => None,
        };
        let ts = Timestamp::new(secs, dt.get_microsecond() * 1000, off)
            .ok_or_else(|| fail_msg("UTC offset out of range".into()))?;
        Ok(self.enc.timestamp(ts)?)
    }

    /// A `datetime.time` (or subclass) as `EXT_TIME`: an aware one (whose
    /// `utcoffset()` is not None) with its offset, to the microsecond; one
    /// whose tzinfo gives no offset is naive, as Python defines it (a
    /// `ZoneInfo`'s offset depends on a date, so its times are naive), and
    /// a tzinfo's error from `utcoffset(None)` is raised as it is.
    pub(super) fn time(&mut self, t: &Bound<'py, PyTime>) -> EncodeResult {
        use pyo3::types::{PyDeltaAccess, PyTimeAccess, PyTzInfoAccess};
        let py = self.py;
        let offset = match t.get_tzinfo() {
            None => None,
            Some(_) => {
                let u = t.call_method0(pyo3::intern!(py, "utcoffset"))?;
                if u.is_none() {
                    None
                } else {
                    let d = u.cast::<PyDelta>().map_err(PyErr::from)?;
                    Some(
                        d.get_days() as i64 * times::US_PER_DAY as i64
                            + d.get_seconds() as i64 * 1_000_000
                            + d.get_microseconds() as i64,
                    )
                }
            }
        };
        let micros = ((t.get_hour() as u64 * 60 + t.get_minute() as u64) * 60
            + t.get_second() as u64)
            * 1_000_000
            + t.get_microsecond() as u64;
        let tod = times::TimeOfDay {
            micros,
            fold: t.get_fold(),
            offset,
        };
        Ok(self.enc.ext(EXT_TIME, &tod.payload())?)
    }

    /// A `numpy.datetime64` scalar as a timestamp without offset, exact
    /// for every unit from years to nanoseconds. NaT goes to `default`.
    pub(super) fn datetime64(
        &mut self,
        ob: &Bound<'py, PyAny>,
        np: &pytypes::Numpy,
        from: Option<(*mut ffi::PyTypeObject, u32)>,
    ) -> EncodeResult {
        let py = self.py;
        let dtype = ob.getattr(pyo3::intern!(py, "dtype"))?;
        let (unit, count): (String, i64) = np.datetime_data.bind(py).call1((dtype,))?.extract()?;
        let raw: i64 = ob
            .call_method1(pyo3::intern!(py, "view"), ("<i8",))?
            .extract()?;
        if raw == i64::MIN {
            // NaT ("not a time"): no timestamp.
            return self.call_default(ob, from, || {
                Err(fail_msg(
                    "cannot encode object of type 'numpy.datetime64' (NaT, not a time)".into(),
                ))
            });
        }
        let ts = datetime64_timestamp(raw, &unit, count).map_err(|why| {
            fail_msg(format!(
                "cannot encode object of type 'numpy.datetime64' ({}): {why}",
                ob.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        Ok(self.enc.timestamp(ts)?)
    }
}

/// The timestamp (without offset) of a numpy datetime64 value `raw` in
/// units of `count` x `unit` since 1970-01-01T00:00, or why there is none.
fn datetime64_timestamp(raw: i64, unit: &str, count: i64) -> Result<Timestamp, String> {
    const OUT: &str = "outside the range of a timestamp";
    let n = i128::from(raw)
        .checked_mul(i128::from(count))
        .ok_or_else(|| OUT.to_string())?;
    // Nanoseconds per unit (calendar units are converted to days first).
    let ns_per: i128 = match unit {
        "Y" | "M" => {
            // Years or months since 1970: the first day of that month.
            let months = if unit == "Y" {
                n.checked_mul(12).ok_or_else(|| OUT.to_string())?
            } else {
                n
            };
            let year = 1970 + months.div_euclid(12);
            // Beyond this many years the seconds cannot fit in an i64.
            if year.unsigned_abs() > 200_000_000_000 {
                return Err(OUT.into());
            }
            let month = months.rem_euclid(12) as u32 + 1;
            let days = pytypes::days_from_civil(year as i64, month, 1);
            let secs = days.checked_mul(86_400).ok_or_else(|| OUT.to_string())?;
            return Timestamp::new(secs, 0, None).ok_or_else(|| OUT.into());
        }
        "W" => 7 * 86_400 * 1_000_000_000,
        "D" => 86_400 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        "m" => 60 * 1_000_000_000,
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        "ps" | "fs" | "as" => {
            return Err(format!(
                "unit '{unit}' is finer than the nanoseconds of a timestamp"
            ))
        }
        _ => return Err(format!("unit '{unit}' is not supported")),
    };
    let total = n.checked_mul(ns_per).ok_or_else(|| OUT.to_string())?;
    let secs = i64::try_from(total.div_euclid(1_000_000_000)).map_err(|_| OUT.to_string())?;
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    Timestamp::new(secs, nanos, None).ok_or_else(|| OUT.into())
}
