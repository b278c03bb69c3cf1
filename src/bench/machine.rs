//! Facts about the machine and the build, so numbers from different runs
//! can be compared: cores, memory, CPU, load, rustc, build profile.

use std::fmt::Write as _;
use std::process::Command;

/// The machine a report was measured on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// Cores available to the process.
    pub cores: usize,
    /// Total memory, in MiB (0 if unknown).
    pub memory_mib: u64,
    /// CPU model name, if known.
    pub cpu: Option<String>,
    /// `os/arch`.
    pub platform: String,
    /// The 1-minute load average when the run started, if known.
    pub load: Option<String>,
    /// `rustc --version` of the toolchain on PATH, if there is one.
    pub rustc: Option<String>,
    /// `release` or `debug` (whether debug assertions are compiled in).
    pub profile: &'static str,
    /// The kepspec version.
    pub version: &'static str,
}

impl Machine {
    /// Reads the facts of this machine (from /proc where available).
    pub fn detect() -> Machine {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let loadavg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        Machine {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_mib: kib_field(&meminfo, "MemTotal:").unwrap_or(0) / 1024,
            cpu: text_field(&cpuinfo, "model name"),
            platform: format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
            load: loadavg.split_whitespace().next().map(str::to_string),
            rustc: rustc_version(),
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            version: env!("CARGO_PKG_VERSION"),
        }
    }

    /// The facts as a Markdown table.
    pub fn to_markdown(&self) -> String {
        let unknown = || "unknown".to_string();
        let mut out = String::from("| machine | |\n|---|---|\n");
        let mut line = |k: &str, v: String| {
            let _ = writeln!(out, "| {k} | {v} |");
        };
        line("cores", self.cores.to_string());
        line(
            "memory",
            if self.memory_mib > 0 {
                format!("{} MiB", self.memory_mib)
            } else {
                unknown()
            },
        );
        line("cpu", self.cpu.clone().unwrap_or_else(unknown));
        line("platform", self.platform.clone());
        line(
            "load average at start (1 min)",
            self.load.clone().unwrap_or_else(unknown),
        );
        line("rustc", self.rustc.clone().unwrap_or_else(unknown));
        line("build profile", self.profile.to_string());
        line("kepspec", self.version.to_string());
        out
    }
}

/// A `Key:   123 kB` line of /proc/meminfo or /proc/self/status, in KiB.
pub(crate) fn kib_field(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The value of the first `key : value` line of /proc/cpuinfo.
fn text_field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_string())
}

fn rustc_version() -> Option<String> {
    let out = Command::new("rustc").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_fields() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(kib_field(status, "VmRSS:"), Some(1024));
        assert_eq!(kib_field(status, "VmHWM:"), Some(2048));
        assert_eq!(kib_field(status, "VmSwap:"), None);
        let cpu = "processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\n";
        assert_eq!(
            text_field(cpu, "model name").as_deref(),
            Some("Some CPU @ 2.0GHz")
        );
    }

    #[test]
    fn markdown_names_every_fact() {
        let md = Machine::default().to_markdown();
        for k in ["cores", "memory", "rustc", "build profile"] {
            assert!(md.contains(k), "{k} missing from {md}");
        }
    }
}
