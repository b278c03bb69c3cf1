//! `cargo test --test spec`: the whole specification on the embedded cluster
//! with the bundled controller: `kepspec run`, the binary this package
//! builds, run as a user runs it.

use std::process::ExitCode;

#[path = "run_binary.rs"]
mod run_binary;

fn main() -> ExitCode {
    // libtest passes its own flags (e.g. `--nocapture`); the spec takes
    // none. `KEPSPEC_SPEC_ARGS` adds options of `kepspec run` (cargo-mutants
    // runs the spec with `--fail-fast`, so a caught mutant ends early); what
    // does not parse is reported with exit code 2.
    let extra = std::env::var("KEPSPEC_SPEC_ARGS").unwrap_or_default();
    run_binary::kepspec(std::iter::once("run").chain(extra.split_whitespace()))
}
