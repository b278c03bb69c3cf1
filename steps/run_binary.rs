//! What the test targets that run the specification (`spec`, `kruise`)
//! share: they run the `kepspec` binary of this package from the package
//! root, its output passed through, and exit with its exit code. (Running
//! the binary, rather than linking the step definitions into each test,
//! builds the steps once.)

use std::process::{Command, ExitCode};

/// Runs `kepspec <args...>`; its exit code, or 2 if it could not start.
pub fn kepspec<'a>(args: impl IntoIterator<Item = &'a str>) -> ExitCode {
    let status = Command::new(env!("CARGO_BIN_EXE_kepspec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status();
    match status {
        Ok(s) => match s.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            // Killed by a signal.
            None => ExitCode::FAILURE,
        },
        Err(err) => {
            eprintln!("error: cannot run {}: {err}", env!("CARGO_BIN_EXE_kepspec"));
            ExitCode::from(2)
        }
    }
}
