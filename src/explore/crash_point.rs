//! What the crash-point step of a scenario does in the current run: nothing
//! in an ordinary run; under `kepspec explore`, record the controller's
//! writes, or crash the controller (or fail the request) at one of them.

use std::sync::Mutex;

use tokio::sync::mpsc;

use crate::harness::faults::{self, Target};
use crate::harness::scenario::Scenario;
use crate::sim::faults::{FaultAction, Occurrence, RequestRecord};

/// The exploration's instruction for the current run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// Record every write of the controller from the step on.
    Record,
    /// Restart the controller right after its Nth write from the step on.
    CrashAfter(u64),
    /// Fail the controller's Nth write from the step on with this code.
    FailWrite(u64, u16),
}

static INSTRUCTION: Mutex<Option<Instruction>> = Mutex::new(None);
static WRITES: Mutex<Vec<RequestRecord>> = Mutex::new(Vec::new());

fn with<T, R>(m: &Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
    match m.lock() {
        Ok(mut g) => f(&mut g),
        Err(p) => f(&mut p.into_inner()),
    }
}

/// Sets the instruction for the next run and forgets the writes of the last one.
pub fn set(instruction: Option<Instruction>) {
    with(&INSTRUCTION, |p| *p = instruction);
    with(&WRITES, Vec::clear);
}

/// The writes recorded (or acted on) in the last run, in order.
pub fn writes() -> Vec<RequestRecord> {
    with(&WRITES, |w| w.clone())
}

fn collect(mut rx: mpsc::UnboundedReceiver<RequestRecord>) {
    tokio::spawn(async move {
        while let Some(r) = rx.recv().await {
            with(&WRITES, |w| w.push(r));
        }
    });
}

/// The tag of scenarios that only `kepspec explore` runs.
pub const EXPLORE_TAG: &str = "explore";

/// What `kepspec run` says of a scenario tagged [`EXPLORE_TAG`].
pub const EXPLORE_SKIP: &str = "restarts the controller after each of its writes in turn, which only `kepspec explore` does (CI runs it)";

/// The step "the controller may crash after any of its writes": acts on the
/// instruction for the current run (nothing without one).
pub async fn after_any_write(sc: &mut Scenario, words: &str) -> anyhow::Result<()> {
    let instruction = with(&INSTRUCTION, |p| *p);
    match instruction {
        // Outside an exploration the step would do nothing and the scenario
        // would pass without a single restart.
        None => anyhow::bail!(
            "{} \"{words}\" takes effect only under `kepspec explore`; tag the scenario @{EXPLORE_TAG} so `kepspec run` skips it",
            crate::run::runner::INPUT_ERROR
        ),
        Some(Instruction::Record) => {
            let rx = faults::watch_requests(sc, words, &Target::writes(), Occurrence::Every)?;
            collect(rx);
            Ok(())
        }
        Some(Instruction::CrashAfter(n)) => {
            let (tx, rx) = mpsc::unbounded_channel();
            faults::restart_after_with(
                sc,
                words,
                &Target::writes(),
                Occurrence::Nth(n),
                Some(tx),
                false,
            )?;
            collect(rx);
            Ok(())
        }
        Some(Instruction::FailWrite(n, code)) => {
            let code = faults::fault_code(code).map_err(|e| anyhow::anyhow!(e))?;
            let (tx, rx) = mpsc::unbounded_channel();
            let actions = vec![
                FaultAction::Fail {
                    code,
                    message: format!("injected by kepspec explore at write {n}"),
                },
                FaultAction::Notify(crate::sim::faults::Listener(tx)),
            ];
            let rule = Target::writes().rule(&sc.namespace, Occurrence::Nth(n), actions);
            faults::inject(sc, words, rule, false)?;
            collect(rx);
            Ok(())
        }
    }
}
