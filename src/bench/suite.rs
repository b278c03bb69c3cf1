//! The whole specification: `kepspec run` as a subprocess, its wall time
//! and closing line.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::measure::{duration, round};
use super::report::{Row, Section};
use super::Mode;

/// Goal for the full suite.
const GOAL: Duration = Duration::from_secs(60);

/// The suite is stopped after this long.
const DEADLINE: Duration = Duration::from_secs(600);

/// Runs `kepspec run` from the current directory with this kepspec binary
/// or a built one (a release build preferred); skipped in quick mode or
/// when there is no binary or no `features/` directory here.
pub async fn wall_time(mode: Mode) -> anyhow::Result<Section> {
    let mut s = Section::new("suite", "Full specification wall time");
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
    let t0 = Instant::now();
    let child = tokio::process::Command::new(&binary)
        .arg("run")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let out = tokio::time::timeout(DEADLINE, child.wait_with_output())
        .await
        .map_err(|_| anyhow::anyhow!("`kepspec run` did not finish within {DEADLINE:?}"))??;
    let wall = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out
        .status
        .code()
        .map_or("killed by a signal".to_string(), |c| c.to_string());
    s.row(Row::goal(
        what,
        "1 run",
        duration(wall),
        format!("< {} and exit code 0", round(GOAL)),
        wall < GOAL && out.status.success(),
    ))
    .row(Row::goal(
        "exit code",
        "1 run",
        code,
        "0",
        out.status.success(),
    ))
    .row(Row::info(
        "closing line",
        "1 run",
        closing_line(&stdout)
            .or_else(|| closing_line(&stderr))
            .unwrap_or("(no output)"),
    ));
    s.note(format!(
        "Binary: `{}` ({}), run from the current directory with default options: the \
         embedded cluster and the bundled controller in-process.",
        binary.display(),
        profile_of(&binary)
    ));
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
