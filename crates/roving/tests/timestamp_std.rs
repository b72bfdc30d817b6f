//! `Timestamp` works with the standard library as a service expects:
//! `Display` prints RFC 3339 (`format!("{t}")`, `t.to_string()`), and it
//! converts from and to `std::time::SystemTime` (the clock a service
//! stamps records with), exactly to the nanosecond, before the epoch
//! too; a conversion out of range is an error, not a panic.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use roving::{ErrorKind, Timestamp};

#[test]
fn display_is_rfc3339() {
    let t = Timestamp::new(1_700_000_000, 123_000_000, Some(3600)).unwrap();
    assert_eq!(t.to_string(), t.to_rfc3339());
    assert_eq!(format!("{t}"), "2023-11-14T23:13:20.123+01:00");
    assert_eq!(t.to_string().parse::<Timestamp>().unwrap(), t);
}

#[test]
fn system_time_round_trips() {
    for (secs, nanos) in [
        (0i64, 0u32),
        (1_700_000_000, 123_456_789),
        (-1, 999_999_999),
        (-1, 0),
        (-86_400 * 365 * 100, 1),
        (253_402_300_799, 999_999_999),
    ] {
        let t = Timestamp::new(secs, nanos, Some(0)).unwrap();
        let st = SystemTime::try_from(t).unwrap();
        let expected = if secs >= 0 {
            UNIX_EPOCH + Duration::new(secs as u64, nanos)
        } else {
            UNIX_EPOCH - Duration::new(secs.unsigned_abs(), 0) + Duration::new(0, nanos)
        };
        assert_eq!(st, expected, "{secs} {nanos}");
        assert_eq!(Timestamp::try_from(st).unwrap(), t, "{secs} {nanos}");
    }
}

#[test]
fn the_offset_does_not_change_the_instant() {
    let utc = Timestamp::new(1_700_000_000, 5, Some(0)).unwrap();
    let local = Timestamp::new(1_700_000_000, 5, Some(-5 * 3600)).unwrap();
    let none = Timestamp::new(1_700_000_000, 5, None).unwrap();
    assert_eq!(
        SystemTime::try_from(utc).unwrap(),
        SystemTime::try_from(local).unwrap()
    );
    assert_eq!(
        SystemTime::try_from(utc).unwrap(),
        SystemTime::try_from(none).unwrap()
    );
}

#[test]
fn now_converts() {
    let now = SystemTime::now();
    let t = Timestamp::try_from(now).unwrap();
    assert!(t.seconds > 1_600_000_000);
    // A SystemTime is an instant: UTC, offset 0, shown with `Z`.
    assert_eq!(t.offset, Some(0));
    assert!(t.to_string().ends_with('Z'), "{t}");
    assert_eq!(SystemTime::try_from(t).unwrap(), now);
}

#[test]
fn out_of_range_is_an_error() {
    // Fields are public: a hand-built timestamp may be invalid.
    let bad = Timestamp {
        seconds: 0,
        nanos: 1_000_000_000,
        offset: None,
    };
    let e = SystemTime::try_from(bad).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Unsupported);
    // Whatever the platform, the extremes convert or fail, with no panic.
    let _ = SystemTime::try_from(Timestamp::new(i64::MIN, 0, None).unwrap());
    let _ = SystemTime::try_from(Timestamp::new(i64::MAX, Timestamp::MAX_NANOS, None).unwrap());
}

/// On Unix a `SystemTime` holds `i64` seconds as a timestamp does: every
/// timestamp converts and comes back, the extremes included. (The earliest,
/// `i64::MIN` seconds, was 2^63 s before the epoch, which the conversion
/// from `SystemTime` took for out of range.)
#[cfg(unix)]
#[test]
fn the_extremes_round_trip_on_unix() {
    for (secs, nanos) in [
        (i64::MIN, 0),
        (i64::MIN, 1),
        (i64::MIN + 1, 0),
        (i64::MAX, Timestamp::MAX_NANOS),
    ] {
        let t = Timestamp::new(secs, nanos, Some(0)).unwrap();
        let st = SystemTime::try_from(t).unwrap();
        assert_eq!(Timestamp::try_from(st).unwrap(), t, "{secs} {nanos}");
    }
    // One nanosecond before the earliest is out of range.
    let earliest = SystemTime::try_from(Timestamp::new(i64::MIN, 0, None).unwrap()).unwrap();
    if let Some(before) = earliest.checked_sub(Duration::from_nanos(1)) {
        assert!(Timestamp::try_from(before).is_err());
    }
}

/// Timestamps sort by instant (`sort`, `max`, `BTreeMap` keys), then by
/// offset (none first), consistently with `==`, which tells offsets apart.
#[test]
fn timestamps_sort_by_instant() {
    let t = |s: &str| s.parse::<Timestamp>().unwrap();
    let mut v = [
        t("2024-01-01T10:00:00+09:00"), // 01:00Z
        t("2024-01-01T00:00:00.5Z"),
        t("1969-12-31T23:59:59Z"),
        t("2024-01-01T01:00:00Z"),
        t("2024-01-01T00:00:00Z"),
    ];
    v.sort();
    let text: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    assert_eq!(
        text,
        [
            "1969-12-31T23:59:59Z",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00.500Z",
            "2024-01-01T01:00:00Z",
            "2024-01-01T10:00:00+09:00",
        ]
    );
    assert_eq!(v.iter().max(), v.last());
    let a = t("2024-01-01T01:00:00Z");
    let b = t("2024-01-01T10:00:00+09:00");
    assert!(a != b && a < b && a.cmp(&b) != std::cmp::Ordering::Equal);
}
