//! Orderly interrupts: the first SIGINT or SIGTERM cancels a token the run
//! watches (no scenario starts after it, the running ones are dropped, their
//! namespaces deleted, the reports written for what ran, exit 130); a second
//! signal, or an orderly stop still going after [`STOP_GRACE`], exits at once
//! with 130.

use tokio_util::sync::CancellationToken;

/// The exit code of an interrupted run (128 + SIGINT), as shells report it.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// How long an orderly stop may take before the run exits anyway, like the
/// kubelet's default `terminationGracePeriodSeconds`. A process supervisor
/// that sends one SIGTERM (a CI runner's cancel, a test harness's timeout)
/// then sees the run end even when a scenario's in-process controller keeps
/// it from winding down.
pub(crate) const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// A listener for SIGINT and SIGTERM.
pub(crate) struct Interrupt {
    token: CancellationToken,
    /// Cancelled on drop: the listener stops.
    done: CancellationToken,
}

impl Interrupt {
    /// Starts listening on a thread of its own, with a runtime of its own:
    /// a signal is heard, and the grace runs out, even when the run's
    /// runtime is too busy to poll a task (a scenario's in-process
    /// controller spinning without yielding).
    pub(crate) fn install() -> Self {
        let token = CancellationToken::new();
        let done = CancellationToken::new();
        let (first, stop) = (token.clone(), done.clone());
        let spawned = std::thread::Builder::new()
            .name("interrupt".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                match runtime {
                    Ok(runtime) => runtime.block_on(listen(first, stop)),
                    Err(err) => eprintln!("warning: cannot listen for interrupts: {err}"),
                }
            });
        if let Err(err) = spawned {
            eprintln!("warning: cannot listen for interrupts: {err}");
        }
        Self { token, done }
    }

    /// The token cancelled by the first signal.
    pub(crate) fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        self.done.cancel();
    }
}

/// The first signal cancels `first`; a second one, or [`STOP_GRACE`] after
/// the first, exits. Returns when `stop` is cancelled.
async fn listen(first: CancellationToken, stop: CancellationToken) {
    tokio::select! {
        () = stop.cancelled() => return,
        () = signal() => {}
    }
    super::collector::clear_bar_line();
    eprintln!(
        "interrupted: stopping the running scenarios, cleaning up and writing the reports (interrupt again to exit at once)"
    );
    first.cancel();
    tokio::select! {
        () = stop.cancelled() => return,
        () = signal() => eprintln!("interrupted again: exiting at once"),
        () = tokio::time::sleep(STOP_GRACE) => eprintln!(
            "interrupted: the orderly stop took longer than {} s, exiting at once",
            STOP_GRACE.as_secs()
        ),
    }
    std::process::exit(i32::from(EXIT_INTERRUPTED));
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
