//! `cargo test --test spec`: the whole specification on the embedded cluster
//! with the bundled controller, exactly as `kepspec run` runs it.

#[path = "mod.rs"]
mod steps;

#[path = "entry.rs"]
mod entry;

use std::process::ExitCode;

fn main() -> ExitCode {
    // libtest passes its own flags (e.g. `--nocapture`); the spec takes
    // none. `KEPSPEC_SPEC_ARGS` adds options of `kepspec run` (cargo-mutants
    // runs the spec with `--fail-fast`, so a caught mutant ends early); what
    // does not parse is reported with exit code 2.
    let extra = std::env::var("KEPSPEC_SPEC_ARGS").unwrap_or_default();
    entry::run(std::iter::once("run".to_string()).chain(extra.split_whitespace().map(String::from)))
}
