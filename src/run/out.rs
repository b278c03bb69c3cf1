//! Standard output that survives its reader going away: `kepspec lint |
//! head` ends quietly instead of panicking on the broken pipe, and a run
//! piped into a pager that quits keeps running and still writes its reports.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints `text` and a newline; once the reader has gone, prints nothing.
pub(crate) fn line(text: impl std::fmt::Display) {
    text_raw(&format!("{text}\n"));
}

/// Prints `text` as it is.
pub(crate) fn text_raw(text: &str) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
        }
    }
}
