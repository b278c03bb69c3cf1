//! `kepspec-controller`: the bundled StatefulSet controller alone, for the
//! controller image. `kepspec controller` runs the same loop.

use std::process::ExitCode;

use clap::Parser;
use kepspec_controller::command::{serve, ControllerArgs};

/// The same allocator as kepspec's own binaries.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The bundled StatefulSet controller (KEP-3541 Recreate, KEP-961
/// maxUnavailable, the KEP-3541 draft's EnforcedRollingUpdate).
#[derive(Debug, Parser)]
#[command(name = "kepspec-controller", version)]
struct Cli {
    #[command(flatten)]
    args: ControllerArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KEPSPEC_LOG")
                .unwrap_or_else(|_| "warn,kube_client::client::builder=off".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::from(2);
        }
    };
    ExitCode::from(runtime.block_on(serve(&cli.args)))
}
