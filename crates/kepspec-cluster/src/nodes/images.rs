//! The simulated node's image store and what a container's process does.
//!
//! A catalog entry is an image reference optionally followed by
//! space-separated attributes:
//! - `exit=N`: the image's own entrypoint exits with code N right after it
//!   starts (used when the container sets no `command`/`args`);
//! - `runs=MS`: that entrypoint exits after MS milliseconds (with `exit=N`'s
//!   code, 0 by default);
//! - `sigterm=ignore`: the process ignores SIGTERM, so stopping it waits for
//!   the grace period and ends with exit code 137.
//!
//! Images not in the catalog cannot be pulled (ErrImagePull).

use std::collections::BTreeMap;
use std::time::Duration;

/// How a container's main process behaves once started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Process {
    /// Runs until stopped.
    Forever,
    /// Exits by itself after the duration with the exit code.
    Exits {
        /// Time from start to exit.
        after: Duration,
        /// The exit code.
        code: i32,
    },
}

/// What the catalog knows about one image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImageBehaviour {
    /// The image's own entrypoint.
    pub entrypoint: Process,
    /// Whether the process ignores SIGTERM.
    pub ignores_sigterm: bool,
}

/// The images present on (or pullable by) the simulated nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct ImageCatalog {
    images: BTreeMap<String, ImageBehaviour>,
}

impl ImageCatalog {
    /// Builds the catalog from entries (see the module doc); malformed
    /// attributes are ignored.
    pub(crate) fn new(entries: &[String]) -> Self {
        let mut images = BTreeMap::new();
        for entry in entries {
            let mut parts = entry.split_whitespace();
            let Some(image) = parts.next() else {
                continue;
            };
            let mut code = None;
            let mut runs = None;
            let mut ignores_sigterm = false;
            for attr in parts {
                match attr.split_once('=') {
                    Some(("exit", n)) => code = n.parse::<i32>().ok(),
                    Some(("runs", ms)) => runs = ms.parse::<u64>().ok().map(Duration::from_millis),
                    Some(("sigterm", "ignore")) => ignores_sigterm = true,
                    _ => {}
                }
            }
            let entrypoint = match (code, runs) {
                (None, None) => Process::Forever,
                (code, runs) => Process::Exits {
                    after: runs.unwrap_or_default(),
                    code: code.unwrap_or(0),
                },
            };
            images.insert(
                normalize(image),
                ImageBehaviour {
                    entrypoint,
                    ignores_sigterm,
                },
            );
        }
        ImageCatalog { images }
    }

    /// The behaviour of `image` if it is in the catalog.
    pub(crate) fn lookup(&self, image: &str) -> Option<&ImageBehaviour> {
        self.images.get(&normalize(image))
    }
}

/// The fully qualified reference containerd reports:
/// `busybox:1.36` -> `docker.io/library/busybox:1.36`, no tag -> `:latest`.
pub(super) fn normalize(image: &str) -> String {
    let image = image.trim();
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let first = name.split('/').next().unwrap_or_default();
    let has_registry =
        name.contains('/') && (first.contains('.') || first.contains(':') || first == "localhost");
    let mut full = if has_registry {
        name.to_string()
    } else if name.contains('/') {
        format!("docker.io/{name}")
    } else {
        format!("docker.io/library/{name}")
    };
    let last = full.rsplit('/').next().unwrap_or_default();
    if digest.is_none() && !last.contains(':') {
        full.push_str(":latest");
    }
    match digest {
        Some(d) => format!("{full}@{d}"),
        None => full,
    }
}

/// What the container's process does, from its `command` and `args`
/// (falling back to the image's entrypoint when both are empty).
///
/// Understood: `sleep N` (exits 0 after N seconds; `infinity` runs forever),
/// `true` / `false`, and shell scripts (`sh -c "..."`) made of `sleep N`,
/// `exit N`, `true`, `false` and other statements that finish at once;
/// loops (`while`, `until`, `tail -f`) run forever. A script that reaches its
/// end exits with 0. Other programs run until stopped.
pub(super) fn process_of(command: &[String], args: &[String], image: &ImageBehaviour) -> Process {
    let argv: Vec<&str> = command.iter().chain(args).map(String::as_str).collect();
    let Some(program) = argv.first() else {
        return image.entrypoint;
    };
    let base = program.rsplit('/').next().unwrap_or(program);
    match base {
        "sh" | "bash" | "ash" | "dash" => {
            match argv
                .iter()
                .position(|a| *a == "-c")
                .and_then(|i| argv.get(i + 1))
            {
                Some(script) => script_process(script),
                None => image.entrypoint,
            }
        }
        "sleep" => sleep_process(argv.get(1).copied().unwrap_or("0"), Duration::ZERO),
        "true" => Process::Exits {
            after: Duration::ZERO,
            code: 0,
        },
        "false" => Process::Exits {
            after: Duration::ZERO,
            code: 1,
        },
        _ => Process::Forever,
    }
}

fn sleep_process(arg: &str, before: Duration) -> Process {
    match parse_seconds(arg) {
        Some(d) => Process::Exits {
            after: before + d,
            code: 0,
        },
        None => Process::Forever,
    }
}

/// The code a container's process exits with when SIGTERM stops it: a shell
/// script that traps TERM with `exit N` (`trap "exit 1" TERM`, `trap 'exit
/// 1' SIGTERM`) exits with N; any other process with 0.
pub(super) fn sigterm_exit_code(command: &[String], args: &[String]) -> i32 {
    let argv: Vec<&str> = command.iter().chain(args).map(String::as_str).collect();
    let Some(script) = argv
        .iter()
        .position(|a| *a == "-c")
        .and_then(|i| argv.get(i + 1))
    else {
        return 0;
    };
    script
        .split([';', '\n'])
        .map(str::trim)
        .filter_map(|stmt| stmt.strip_prefix("trap "))
        .find_map(|rest| {
            let rest = rest.trim();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let (action, signals) = rest[1..].split_once(quote)?;
            let traps_term = signals
                .split_whitespace()
                .any(|s| s == "TERM" || s == "SIGTERM" || s == "15");
            let code = action.trim().strip_prefix("exit")?.trim();
            traps_term.then(|| code.parse().unwrap_or(0))
        })
        .unwrap_or(0)
}

fn parse_seconds(arg: &str) -> Option<Duration> {
    let arg = arg.trim().trim_end_matches('s');
    let secs: f64 = arg.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

fn script_process(script: &str) -> Process {
    if ["while ", "until ", "tail -f", "sleep infinity"]
        .iter()
        .any(|w| script.contains(w))
    {
        return Process::Forever;
    }
    let mut elapsed = Duration::ZERO;
    let statements: Vec<&str> = script
        .split([';', '\n'])
        .flat_map(|s| s.split("&&"))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    for (i, stmt) in statements.iter().enumerate() {
        let mut words = stmt.split_whitespace();
        match (words.next(), words.next()) {
            (Some("exit"), code) => {
                let code = code.and_then(|c| c.parse().ok()).unwrap_or(0);
                return Process::Exits {
                    after: elapsed,
                    code,
                };
            }
            (Some("sleep"), Some(arg)) => match parse_seconds(arg) {
                Some(d) => elapsed += d,
                None => return Process::Forever,
            },
            (Some("false"), _) if i + 1 == statements.len() => {
                return Process::Exits {
                    after: elapsed,
                    code: 1,
                }
            }
            _ => {}
        }
    }
    Process::Exits {
        after: elapsed,
        code: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    const FOREVER: ImageBehaviour = ImageBehaviour {
        entrypoint: Process::Forever,
        ignores_sigterm: false,
    };

    #[test]
    fn a_script_trapping_term_with_exit_exits_with_that_code() {
        let sh = |script: &str| s(&["sh", "-c", script]);
        let none: Vec<String> = Vec::new();
        assert_eq!(
            sigterm_exit_code(
                &sh(r#"trap "exit 1" TERM; while true; do sleep 1; done"#),
                &none
            ),
            1
        );
        assert_eq!(
            sigterm_exit_code(
                &s(&["/bin/sh", "-c"]),
                &s(&["trap 'exit 3' SIGTERM\nsleep infinity"])
            ),
            3
        );
        assert_eq!(
            sigterm_exit_code(&sh("trap 'echo bye' TERM; sleep 100"), &none),
            0
        );
        assert_eq!(
            sigterm_exit_code(&sh("trap 'exit 2' INT; sleep 100"), &none),
            0
        );
        assert_eq!(sigterm_exit_code(&s(&["sleep", "100"]), &none), 0);
    }

    #[test]
    fn normalizes_like_containerd() {
        assert_eq!(normalize("busybox:1.36"), "docker.io/library/busybox:1.36");
        assert_eq!(normalize("busybox"), "docker.io/library/busybox:latest");
        assert_eq!(normalize("bitnami/redis:7"), "docker.io/bitnami/redis:7");
        assert_eq!(
            normalize("registry.k8s.io/pause:3.10"),
            "registry.k8s.io/pause:3.10"
        );
        assert_eq!(normalize("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(
            normalize("app@sha256:ab"),
            "docker.io/library/app@sha256:ab"
        );
    }

    #[test]
    fn catalog_entries_and_attributes() {
        let c = ImageCatalog::new(&s(&[
            "registry.k8s.io/pause:3.10",
            "busybox:1.36 exit=0",
            "example.com/crasher:1 exit=3 runs=250 sigterm=ignore",
        ]));
        assert_eq!(
            c.lookup("registry.k8s.io/pause:3.10").unwrap().entrypoint,
            Process::Forever
        );
        assert_eq!(
            c.lookup("docker.io/library/busybox:1.36")
                .unwrap()
                .entrypoint,
            Process::Exits {
                after: Duration::ZERO,
                code: 0
            }
        );
        let crasher = c.lookup("example.com/crasher:1").unwrap();
        assert_eq!(
            crasher.entrypoint,
            Process::Exits {
                after: Duration::from_millis(250),
                code: 3
            }
        );
        assert!(crasher.ignores_sigterm);
        assert!(c.lookup("registry.k8s.io/pause:no-such-tag").is_none());
    }

    #[test]
    fn commands() {
        let p = |cmd: &[&str], args: &[&str]| process_of(&s(cmd), &s(args), &FOREVER);
        assert_eq!(p(&[], &[]), Process::Forever);
        assert_eq!(
            p(&["sh", "-c", "exit 1"], &[]),
            Process::Exits {
                after: Duration::ZERO,
                code: 1
            }
        );
        assert_eq!(
            p(&["/bin/sh", "-c"], &["sleep 2; exit 7"]),
            Process::Exits {
                after: Duration::from_secs(2),
                code: 7
            }
        );
        assert_eq!(
            p(&["sh", "-c", "sleep 3600"], &[]),
            Process::Exits {
                after: Duration::from_secs(3600),
                code: 0
            }
        );
        assert_eq!(p(&["sh", "-c", "sleep infinity"], &[]), Process::Forever);
        assert_eq!(
            p(&["sh", "-c", "while true; do sleep 1; done"], &[]),
            Process::Forever
        );
        assert_eq!(
            p(&["sh", "-c", "echo hi && false"], &[]),
            Process::Exits {
                after: Duration::ZERO,
                code: 1
            }
        );
        assert_eq!(
            p(&["sleep", "1.5"], &[]),
            Process::Exits {
                after: Duration::from_millis(1500),
                code: 0
            }
        );
        assert_eq!(p(&["sleep", "infinity"], &[]), Process::Forever);
        assert_eq!(p(&["nginx", "-g", "daemon off;"], &[]), Process::Forever);
        assert_eq!(
            p(&["false"], &[]),
            Process::Exits {
                after: Duration::ZERO,
                code: 1
            }
        );
    }
}
