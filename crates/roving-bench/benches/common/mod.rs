//! What the benchmarks of this crate share (each bench includes it with
//! `mod common;`): the CPU-time clock, the group settings, and the run's
//! metadata that `scripts/bench_report.py` reads beside criterion's results.

// Each bench uses a part of this module.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkGroup, Criterion, SamplingMode};
use serde_json::Value as JsonValue;

/// What every run records: its start (the report ignores criterion results
/// older than that), its arguments, the load and the commit.
pub fn run_meta() -> JsonValue {
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let args: Vec<String> = std::env::args().skip(1).collect();
    serde_json::json!({
        "started_unix": started,
        // criterion's `--quick` takes a few samples only: the report says so.
        "quick": args.iter().any(|a| a == "--quick"),
        "args": args,
        "loadavg_start": loadavg(),
        "nice": nice(),
        "commit": git(&["rev-parse", "--short", "HEAD"]),
        "dirty": git(&["status", "--porcelain", "--", "crates/roving", "crates/roving-bench"])
            .as_str()
            .map(|s| !s.is_empty()),
    })
}

/// Adds the load of the machine since `ticks` (taken with [`cpu_ticks`]
/// when timing began) to `meta`.
pub fn end_meta(meta: &mut JsonValue, ticks: Option<(u64, u64, u64)>) {
    meta["loadavg_end"] = loadavg();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    meta["cpus"] = cpus.into();
    if let (Some(a), Some(b)) = (ticks, cpu_ticks()) {
        meta["other_load"] = other_load(a, b, cpus).map_or(JsonValue::Null, JsonValue::from);
        meta["self_share"] = self_share(a, b, cpus).map_or(JsonValue::Null, JsonValue::from);
    }
}

/// Writes a run's metadata to `<criterion dir>/<file>`.
pub fn save_meta(meta: &JsonValue, file: &str) {
    let dir = roving_bench::criterion_dir();
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(file);
    let text = serde_json::to_string_pretty(meta).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("roving-bench: cannot write {}: {e}", path.display());
    }
}

/// `/proc/loadavg`'s first three fields (Linux), or null.
pub fn loadavg() -> JsonValue {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .map_or(JsonValue::Null, JsonValue::from)
}

/// The trimmed output of `git ARGS` in the workspace, or null.
pub fn git(args: &[&str]) -> JsonValue {
    std::process::Command::new("git")
        .args(args)
        .current_dir(roving_bench::workspace_root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .map_or(JsonValue::Null, JsonValue::from)
}

/// This process's nice value (Linux), or null.
pub fn nice() -> JsonValue {
    let me = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    me.rfind(')')
        .and_then(|i| me[i + 1..].split_whitespace().nth(16)?.parse::<i64>().ok())
        .map_or(JsonValue::Null, JsonValue::from)
}

/// CPU ticks so far (Linux): all cores busy, all cores total, this process.
pub fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = f.iter().take(8).sum();
    let idle = f.get(3)? + f.get(4)?;
    let me = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let rest = &me[me.rfind(')')? + 1..];
    let g: Vec<&str> = rest.split_whitespace().collect();
    let mine = g.get(11)?.parse::<u64>().ok()? + g.get(12)?.parse::<u64>().ok()?;
    Some((total - idle, total, mine))
}

/// Cores' worth of CPU that other processes used between two `cpu_ticks`.
pub fn other_load(a: (u64, u64, u64), b: (u64, u64, u64), cpus: usize) -> Option<f64> {
    let wall = (b.1.checked_sub(a.1)? as f64) / cpus.max(1) as f64;
    let other = b.0.checked_sub(a.0)? as f64 - b.2.checked_sub(a.2)? as f64;
    (wall > 0.0).then(|| (other / wall).max(0.0))
}

/// The share of the wall time this process was on a CPU between two `cpu_ticks`.
pub fn self_share(a: (u64, u64, u64), b: (u64, u64, u64), cpus: usize) -> Option<f64> {
    let wall = (b.1.checked_sub(a.1)? as f64) / cpus.max(1) as f64;
    (wall > 0.0).then(|| b.2.saturating_sub(a.2) as f64 / wall)
}

/// The CPU time (user + system) of the calling thread.
#[cfg(unix)]
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // the platform defines. On failure `ts` stays zero.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Wall time where there is no thread CPU clock.
#[cfg(not(unix))]
pub fn thread_cpu_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

/// Criterion measurement: the benchmark thread's CPU time. On a machine
/// shared with other work this leaves out the time the thread waits for a
/// CPU, which wall time counts; every contender here is single-threaded.
pub struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu_time()
    }
    fn end(&self, i: Duration) -> Duration {
        thread_cpu_time().saturating_sub(i)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

/// A group for millisecond-scale work: flat sampling.
pub fn slow<'a, M: Measurement>(c: &'a mut Criterion<M>, name: &str) -> BenchmarkGroup<'a, M> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(400))
        .measurement_time(Duration::from_millis(2000));
    g
}

/// A group for nanosecond-scale work.
pub fn fast<'a, M: Measurement>(c: &'a mut Criterion<M>, name: &str) -> BenchmarkGroup<'a, M> {
    let mut g = c.benchmark_group(name);
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(400))
        .measurement_time(Duration::from_millis(1500));
    g
}

/// Runs `wall` (`ROVING_BENCH_CLOCK=wall`: wall time) or `cpu` (the
/// default: the thread's CPU time, see [`CpuTime`]) with criterion's
/// command-line settings; each gets the name of its clock.
pub fn main_with(wall: fn(&mut Criterion<WallTime>, &str), cpu: fn(&mut Criterion<CpuTime>, &str)) {
    if std::env::var("ROVING_BENCH_CLOCK").is_ok_and(|v| v == "wall") {
        let mut c = Criterion::default().configure_from_args();
        wall(&mut c, "wall");
        c.final_summary();
    } else {
        let mut c = Criterion::default()
            .with_measurement(CpuTime)
            .configure_from_args();
        cpu(&mut c, "cpu");
        c.final_summary();
    }
}
