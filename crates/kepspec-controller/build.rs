//! The `kepspec_defects` cfg: the deliberate defects (`src/defects.rs`) are
//! compiled into debug builds, for the discrimination test, and into a
//! release build only with the `defects` feature. A release build without
//! it cannot be switched into a defect.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kepspec_defects)");
    println!("cargo::rerun-if-changed=build.rs");
    let feature = std::env::var_os("CARGO_FEATURE_DEFECTS").is_some();
    let debug = std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some();
    if feature || debug {
        println!("cargo::rustc-cfg=kepspec_defects");
    }
}
