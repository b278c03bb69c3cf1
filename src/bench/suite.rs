//! The whole specification: `kepspec run` as a subprocess, its wall time
//! and closing line.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::measure::{duration, round};
use super::report::{Row, Section};
use super::Mode;

/// Goal for the full suite's wall time on the 2-core reference machine.
const GOAL: Duration = Duration::from_secs(60);

/// The suite is stopped after this long.
const DEADLINE: Duration = Duration::from_secs(600);

/// Linux reports CPU times in /proc in these ticks per second (`USER_HZ`,
/// fixed at 100 for user space on every architecture Linux supports).
const TICKS_PER_SECOND: u64 = 100;

/// One `kepspec run` of the whole spec.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SuiteRun {
    /// Wall time.
    pub wall: Duration,
    /// User and system CPU time of the run (and anything it waited for),
    /// when this platform reports it.
    pub cpu: Option<Duration>,
    /// Scenarios that ran (passed or failed), from the closing line.
    pub scenarios: Option<u64>,
    /// Exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// The closing line.
    pub closing: String,
}

/// The CPU time (user + system) of this process's children that it has
/// waited for, from /proc/self/stat (`cutime`, `cstime`); `None` where
/// there is no /proc.
pub(crate) fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    children_cpu_of(&stat)
}

/// [`children_cpu`] from the text of a `stat` file.
fn children_cpu_of(stat: &str) -> Option<Duration> {
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    let ticks = tick(13)? + tick(14)?;
    Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// Scenarios run, from a closing line like `256 passed (0 with declared
/// deviations), 3 failed, 37 skipped`: passed plus failed.
fn scenarios_run(closing: &str) -> Option<u64> {
    let count = |word: &str| {
        let at = closing.find(word)?;
        closing[..at]
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()?
            .parse::<u64>()
            .ok()
    };
    Some(count(" passed")? + count(" failed").unwrap_or(0))
}

/// Runs `binary run -q` in `dir` (the current directory when `None`) and
/// measures it.
pub(crate) async fn run_suite(binary: &Path, dir: Option<&Path>) -> anyhow::Result<SuiteRun> {
    let before = children_cpu();
    let t0 = Instant::now();
    let mut command = tokio::process::Command::new(binary);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let child = command
        .args(["run", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e}", binary.display()))?;
    let out = tokio::time::timeout(DEADLINE, child.wait_with_output())
        .await
        .map_err(|_| anyhow::anyhow!("`kepspec run` did not finish within {DEADLINE:?}"))??;
    let wall = t0.elapsed();
    let cpu = match (before, children_cpu()) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b)),
        _ => None,
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let closing = closing_line(&stdout)
        .or_else(|| closing_line(&stderr))
        .unwrap_or("(no output)")
        .to_string();
    Ok(SuiteRun {
        wall,
        cpu,
        scenarios: scenarios_run(&closing),
        code: out.status.code(),
        closing,
    })
}

/// The middle value of `xs` (the lower one of the two middle values).
fn median(mut xs: Vec<Duration>) -> Option<Duration> {
    xs.sort();
    xs.get(xs.len().saturating_sub(1) / 2).copied()
}

/// Wall and CPU medians of some runs of one binary.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Medians {
    wall: Duration,
    cpu: Option<Duration>,
    per_scenario: Option<Duration>,
}

fn medians(runs: &[SuiteRun]) -> Option<Medians> {
    let wall = median(runs.iter().map(|r| r.wall).collect())?;
    let cpus: Option<Vec<Duration>> = runs.iter().map(|r| r.cpu).collect();
    let cpu = cpus.and_then(median);
    let per: Option<Vec<Duration>> = runs
        .iter()
        .map(|r| {
            let n = u32::try_from(r.scenarios?).ok().filter(|n| *n > 0)?;
            Some(r.cpu? / n)
        })
        .collect();
    Some(Medians {
        wall,
        cpu,
        per_scenario: per.and_then(median),
    })
}

fn cpu_text(d: Option<Duration>) -> String {
    d.map_or("not measured (no /proc)".to_string(), duration)
}

fn ratio(new: Duration, old: Duration) -> String {
    if old.is_zero() {
        return "—".to_string();
    }
    format!("{:.2}", new.as_secs_f64() / old.as_secs_f64())
}

/// Runs `kepspec run` from the current directory with this kepspec binary
/// or a built one (a release build preferred), and with `baseline` too when
/// given: then the two alternate (this, baseline, baseline, this, ... for
/// `rounds` rounds, so a drift of the machine weighs on both alike) and the
/// section states their ratio. The baseline runs in `baseline_dir` when
/// given (its own checkout), so each build runs the spec it was built for.
/// Skipped in quick mode or when there is no binary or no `features/`
/// directory here.
pub(crate) async fn wall_time(
    mode: Mode,
    baseline: Option<&Path>,
    baseline_dir: Option<&Path>,
    rounds: u32,
) -> anyhow::Result<Section> {
    let mut s = Section::new("suite", "Full specification: wall time and CPU");
    let what = "`kepspec run` (every feature)";
    if mode.quick {
        s.row(Row::skipped(what, "quick mode"));
        return Ok(s);
    }
    if !Path::new("features").is_dir() {
        s.row(Row::skipped(what, "no features/ directory here"));
        s.note("Run the benchmarks from the repository root.");
        return Ok(s);
    }
    let Some(binary) = find_binary() else {
        s.row(Row::skipped(what, "no built kepspec binary"));
        s.note(
            "Looked for this process (when it is kepspec), then release/kepspec and \
             debug/kepspec under $CARGO_TARGET_DIR and ./target; build one with \
             `cargo build --release`.",
        );
        return Ok(s);
    };
    if let Some(old) = baseline {
        anyhow::ensure!(old.is_file(), "baseline binary {} not found", old.display());
    }
    if let Some(dir) = baseline_dir {
        anyhow::ensure!(
            dir.join("features").is_dir(),
            "baseline directory {} holds no features/ directory",
            dir.display()
        );
    }
    let rounds = rounds.max(1);
    let mut this_runs = Vec::new();
    let mut old_runs = Vec::new();
    for round in 0..rounds {
        // ABBA: this binary first in even rounds, the baseline first in odd ones.
        let order: Vec<bool> = match (baseline.is_some(), round % 2 == 0) {
            (false, _) => vec![true],
            (true, true) => vec![true, false],
            (true, false) => vec![false, true],
        };
        for this in order {
            let (path, dir, into) = match (this, baseline) {
                (true, _) | (false, None) => (binary.as_path(), None, &mut this_runs),
                (false, Some(old)) => (old, baseline_dir, &mut old_runs),
            };
            eprintln!("bench: suite round {} with {}", round + 1, path.display());
            into.push(run_suite(path, dir).await?);
        }
    }
    // The goal is this build's; the baseline's exit codes are rows of their own.
    let all_passed = this_runs.iter().all(|r| r.code == Some(0));
    let Some(now) = medians(&this_runs) else {
        anyhow::bail!("no run of the suite finished");
    };
    let n = format!("median of {rounds}");
    s.row(Row::goal(
        what,
        &n,
        duration(now.wall),
        format!("< {} and exit code 0", round(GOAL)),
        now.wall < GOAL && all_passed,
    ))
    .row(Row::info("CPU (user + system)", &n, cpu_text(now.cpu)))
    .row(Row::info(
        "CPU per scenario run",
        &n,
        cpu_text(now.per_scenario),
    ));
    if let (Some(old_path), Some(old)) = (baseline, medians(&old_runs)) {
        s.row(Row::info(
            format!(
                "baseline `{}`{}: wall",
                old_path.display(),
                baseline_dir
                    .map(|d| format!(" (run in `{}`)", d.display()))
                    .unwrap_or_default()
            ),
            &n,
            duration(old.wall),
        ))
        .row(Row::info(
            "baseline: CPU (user + system)",
            &n,
            cpu_text(old.cpu),
        ))
        .row(Row::info(
            "baseline: CPU per scenario run",
            &n,
            cpu_text(old.per_scenario),
        ))
        .row(Row::info(
            "wall, this / baseline",
            &n,
            ratio(now.wall, old.wall),
        ));
        if let (Some(c), Some(o)) = (now.cpu, old.cpu) {
            s.row(Row::info("CPU, this / baseline", &n, ratio(c, o)));
        }
        if let (Some(c), Some(o)) = (now.per_scenario, old.per_scenario) {
            s.row(Row::info(
                "CPU per scenario, this / baseline",
                &n,
                ratio(c, o),
            ));
        }
    }
    for (who, runs) in [("this", &this_runs), ("baseline", &old_runs)] {
        for r in runs.iter() {
            s.row(Row::goal(
                format!("{who}: exit code"),
                "1 run",
                r.code
                    .map_or("killed by a signal".to_string(), |c| c.to_string()),
                "0",
                r.code == Some(0),
            ))
            .row(Row::info(
                format!("{who}: closing line"),
                "1 run",
                r.closing.clone(),
            ));
        }
    }
    s.note(format!(
        "Binary: `{}` ({}), run from the current directory as `kepspec run -q`: the \
         embedded cluster and the bundled controller in-process. CPU is the run's user \
         and system time as the kernel accounts it to a waited-for child.",
        binary.display(),
        profile_of(&binary)
    ));
    if baseline.is_some() {
        s.note(
            "The two binaries ran one after the other in the same bench, alternating; \
             the ratios (this / baseline, below 1 is faster) are what to compare across \
             machines, not the absolute times.",
        );
    }
    Ok(s)
}

/// The binary to run: this process when it is kepspec itself, otherwise the
/// first existing kepspec binary among the usual build locations.
fn find_binary() -> Option<PathBuf> {
    let this = std::env::current_exe()
        .ok()
        .filter(|p| p.file_name().is_some_and(|n| n == "kepspec"));
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        dirs.push(PathBuf::from(dir));
    }
    dirs.push(PathBuf::from("target"));
    let built = ["release", "debug"]
        .iter()
        .flat_map(|profile| dirs.iter().map(move |d| d.join(profile).join("kepspec")));
    this.into_iter().chain(built).find(|p| p.is_file())
}

/// The build profile a binary's path suggests.
fn profile_of(binary: &Path) -> &'static str {
    let has = |name: &str| binary.components().any(|c| c.as_os_str() == name);
    if has("release") {
        "release build"
    } else if has("debug") {
        "debug build"
    } else {
        "build profile unknown"
    }
}

/// The last non-empty line of `text`.
fn closing_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_is_the_last_non_empty_one() {
        assert_eq!(
            closing_line("a\n51 passed, 0 failed\n\n"),
            Some("51 passed, 0 failed")
        );
        assert_eq!(closing_line(" \n"), None);
    }

    #[test]
    fn children_cpu_reads_cutime_and_cstime() {
        // pid (comm with spaces) state ppid ... utime stime cutime cstime ...
        let stat = "7 (a b) S 1 7 7 0 -1 4194560 100 0 0 0 11 12 4200 80 20 0 1 0 5 0 0";
        assert_eq!(children_cpu_of(stat), Some(Duration::from_millis(42_800)));
        assert_eq!(children_cpu_of("garbage"), None);
    }

    #[test]
    fn scenarios_run_are_passed_plus_failed() {
        assert_eq!(
            scenarios_run("256 passed (0 with declared deviations), 3 failed, 37 skipped"),
            Some(259)
        );
        assert_eq!(scenarios_run("12 passed, 37 skipped"), Some(12));
        assert_eq!(scenarios_run("(no output)"), None);
    }

    #[test]
    fn the_median_is_the_lower_middle() {
        let s = Duration::from_secs;
        assert_eq!(median(vec![s(3), s(1), s(2)]), Some(s(2)));
        assert_eq!(median(vec![s(4), s(1)]), Some(s(1)));
        assert_eq!(median(vec![]), None);
    }

    #[test]
    fn the_profile_comes_from_the_path() {
        assert_eq!(
            profile_of(Path::new("target/release/kepspec")),
            "release build"
        );
        assert_eq!(profile_of(Path::new("/t/debug/kepspec")), "debug build");
        assert_eq!(
            profile_of(Path::new("/usr/bin/kepspec")),
            "build profile unknown"
        );
    }
}
