//! `cargo test --test kruise`: what the OpenKruise profile claims, on the
//! embedded cluster with the bundled controller standing in for
//! Advanced StatefulSet (`apps.kruise.io/v1beta1`):
//! `kepspec run --target clusters/targets/openkruise-advanced-statefulset.yaml`,
//! the binary this package builds; at least one `@kruise` scenario must run.

use std::process::ExitCode;

#[path = "run_binary.rs"]
mod run_binary;

fn main() -> ExitCode {
    // `KEPSPEC_SPEC_ARGS` adds options of `kepspec run`, as for the `spec`
    // test (cargo-mutants runs the Kruise planners with `--fail-fast`).
    let extra = std::env::var("KEPSPEC_SPEC_ARGS").unwrap_or_default();
    let args = [
        "run",
        "--target",
        "clusters/targets/openkruise-advanced-statefulset.yaml",
        "--require",
        "@kruise",
    ];
    run_binary::kepspec(args.into_iter().chain(extra.split_whitespace()))
}
