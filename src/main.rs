//! The `kepspec` command.

/// The allocator of the binary that runs features: the embedded cluster
/// and the recorder allocate and free JSON trees on every change, which
/// mimalloc serves in about two thirds of glibc's CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;
use kepspec::cli::Cli;

/// Log lines go to stderr, on a line of their own: a progress bar on the
/// terminal is cleared first.
fn log_writer() -> impl std::io::Write {
    kepspec::run::collector::clear_bar_line();
    std::io::stderr()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    use std::io::IsTerminal as _;
    let colour = std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
        && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KEPSPEC_LOG")
                .unwrap_or_else(|_| cli.log_filter().into()),
        )
        .with_ansi(colour)
        .with_writer(log_writer)
        .init();
    let verbose = cli.verbose > 0;
    ExitCode::from(kepspec::run::execute(cli.command, verbose))
}
