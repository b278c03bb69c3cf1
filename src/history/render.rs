//! One human-readable line per timeline entry.

use super::timeline::{Entry, Kind};
use kepspec_core::Lookup as _;
use serde_json::Value;
use std::fmt;

/// Displays an entry as `+1.234s pod web-1 MODIFIED rv=42 rev=web-7c9 Running ready terminating`.
pub(crate) struct RenderedLine<'a>(pub(crate) &'a Entry);

impl fmt::Display for RenderedLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        write!(
            f,
            "+{:.3}s {} {} {} rv={}",
            e.at.as_secs_f64(),
            e.kind.word(),
            e.name,
            e.change.word(),
            e.resource_version
        )?;
        if e.inferred {
            write!(f, " (inferred)")?;
        }
        let o = &e.object;
        match e.kind {
            Kind::Pod => {
                let p = super::views::PodFacts::of(o);
                if let Some(rev) = p.revision {
                    write!(f, " rev={rev}")?;
                }
                if let Some(phase) = p.phase {
                    write!(f, " {phase}")?;
                }
                if let Some(w) = p.waiting_reason {
                    write!(f, " waiting={w}")?;
                }
                if p.ready {
                    write!(f, " ready")?;
                }
                if p.terminating {
                    write!(f, " terminating")?;
                }
            }
            Kind::PersistentVolumeClaim => {
                if let Some(phase) = o.lookup("/status/phase").and_then(Value::as_str) {
                    write!(f, " {phase}")?;
                }
                write!(f, " uid={}", e.uid)?;
            }
            Kind::StatefulSet => {
                let n = |p: &str| o.lookup(p).and_then(Value::as_i64).unwrap_or(0);
                let s = |p: &str| o.lookup(p).and_then(Value::as_str).unwrap_or("-");
                write!(
                    f,
                    " gen={} observed={} replicas={} ready={} updated={} current={} update={}",
                    n("/metadata/generation"),
                    n("/status/observedGeneration"),
                    n("/status/replicas"),
                    n("/status/readyReplicas"),
                    n("/status/updatedReplicas"),
                    s("/status/currentRevision"),
                    s("/status/updateRevision"),
                )?;
            }
            Kind::ControllerRevision => {
                if let Some(r) = o.get("revision").and_then(Value::as_i64) {
                    write!(f, " revision={r}")?;
                }
            }
            Kind::Event => {
                let s = |p: &str| o.lookup(p).and_then(Value::as_str).unwrap_or("");
                write!(
                    f,
                    " {} {} {}/{}: {}",
                    s("/type"),
                    s("/reason"),
                    s("/involvedObject/kind"),
                    s("/involvedObject/name"),
                    s("/message")
                )?;
            }
        }
        Ok(())
    }
}
