//! `cargo test --test kruise`: what the OpenKruise profile claims, on the
//! embedded cluster with the bundled controller standing in for
//! Advanced StatefulSet (`apps.kruise.io/v1beta1`), exactly as
//! `kepspec run --target clusters/targets/openkruise-advanced-statefulset.yaml`
//! runs it; at least one `@kruise` scenario must run.

#[path = "mod.rs"]
mod steps;

#[path = "entry.rs"]
mod entry;

use std::process::ExitCode;

fn main() -> ExitCode {
    entry::run(
        [
            "run",
            "--target",
            "clusters/targets/openkruise-advanced-statefulset.yaml",
            "--require",
            "@kruise",
        ]
        .map(String::from),
    )
}
