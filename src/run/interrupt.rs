//! Orderly interrupts: the first SIGINT or SIGTERM cancels a token the run
//! watches (no scenario starts after it, the running ones are dropped, their
//! namespaces deleted, the reports written for what ran, exit 130); a second
//! signal exits at once with 130.

use tokio_util::sync::CancellationToken;

/// The exit code of an interrupted run (128 + SIGINT), as shells report it.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// A listener for SIGINT and SIGTERM.
pub(crate) struct Interrupt {
    token: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Interrupt {
    /// Starts listening (inside a Tokio runtime).
    pub(crate) fn install() -> Self {
        let token = CancellationToken::new();
        let first = token.clone();
        let task = tokio::spawn(async move {
            signal().await;
            super::collector::clear_bar_line();
            eprintln!(
                "interrupted: stopping the running scenarios, cleaning up and writing the reports (interrupt again to exit at once)"
            );
            first.cancel();
            signal().await;
            eprintln!("interrupted again: exiting at once");
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        });
        Self { token, task }
    }

    /// The token cancelled by the first signal.
    pub(crate) fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Ctrl-C or SIGTERM.
async fn signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}
