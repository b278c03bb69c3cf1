//! Temporal checkers: pure functions over a [`Timeline`].
//!
//! The primitives ([`always`], [`never()`]) fold a
//! per-instant [`State`] over the entries in one pass; the named checkers in
//! [`super::rules`] are thin predicates on top of them. Each failure is a
//! [`Violation`] naming the clause of the KEP or documentation the caller
//! gave, the first instant where the property broke, the pods involved and an
//! excerpt of the timeline around that instant.

// `Violation` is the documented error of every checker; checks run a few
// times per scenario, so its size does not matter.
#![allow(clippy::result_large_err)]

use super::timeline::{Entry, Timeline};
use super::views::{scan, State};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::ControlFlow;
use std::time::Duration;

/// The clause of a KEP or of the documentation a property comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clause {
    /// Where it is, e.g. `KEP-3541 Proposed Recreate Strategy Algorithm`.
    pub id: String,
    /// The sentence being checked.
    pub text: String,
}

impl Clause {
    /// A clause from its id and sentence.
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Clause {
        Clause {
            id: id.into(),
            text: text.into(),
        }
    }
}

impl From<&str> for Clause {
    fn from(id: &str) -> Clause {
        Clause::new(id, "")
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.is_empty() {
            write!(f, "{}", self.id)
        } else {
            write!(f, "{}: \"{}\"", self.id, self.text)
        }
    }
}

/// Why a property does not hold at one instant (returned by predicates).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    /// What is wrong, in words.
    pub message: String,
    /// Pods involved.
    pub pods: Vec<String>,
}

impl Breach {
    /// A breach with a message and the pods involved.
    pub fn new(message: impl Into<String>, pods: Vec<String>) -> Breach {
        Breach {
            message: message.into(),
            pods,
        }
    }
}

/// A property that did not hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// The clause the property comes from.
    pub clause: Clause,
    /// Time of the first instant where it broke.
    pub at: Duration,
    /// seq of that instant's entry.
    pub seq: u64,
    /// Pods involved.
    pub pods: Vec<String>,
    /// What went wrong.
    pub message: String,
    /// Rendered timeline lines around `seq`, the culprit marked with `>`.
    pub excerpt: Vec<String>,
}

impl Violation {
    /// A violation at entry `seq` of `t` (its time and excerpt are read from
    /// `t`; past the end, the last entry is used).
    pub fn at_entry(t: &Timeline, clause: &Clause, seq: u64, breach: Breach) -> Violation {
        let seq = seq.min(t.next_seq().saturating_sub(1));
        Violation {
            clause: clause.clone(),
            at: t.get(seq).map_or(Duration::ZERO, |e| e.at),
            seq,
            pods: breach.pods,
            message: breach.message,
            excerpt: t.excerpt_around(seq),
        }
    }
}

impl fmt::Display for Violation {
    /// What broke first, in one line (what was expected and what was seen),
    /// with when and where in the timeline; then the clause it breaks, the
    /// pods involved and the history around that moment.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} (at +{:.3}s, timeline entry #{})",
            self.message,
            self.at.as_secs_f64(),
            self.seq
        )?;
        writeln!(f, "  breaks {}", self.clause)?;
        if !self.pods.is_empty() {
            writeln!(f, "  pods: {}", self.pods.join(", "))?;
        }
        if !self.excerpt.is_empty() {
            writeln!(f, "  timeline:")?;
            for line in &self.excerpt {
                writeln!(f, "    {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Violation {}

/// Checks that `holds` is true of the state after every entry with seq >=
/// `from_seq`; the first entry after which it is false is the violation.
pub(crate) fn always<'t>(
    t: &'t Timeline,
    clause: &Clause,
    from_seq: u64,
    mut holds: impl FnMut(&State<'t>, &'t Entry) -> Result<(), Breach>,
) -> Result<(), Violation> {
    match scan(t, from_seq, |s, e| match holds(s, e) {
        Ok(()) => ControlFlow::Continue(()),
        Err(b) => ControlFlow::Break((e.seq, b)),
    }) {
        None => Ok(()),
        Some((seq, b)) => Err(Violation::at_entry(t, clause, seq, b)),
    }
}

/// Checks that `bad` never reports a breach for the state after any entry
/// with seq >= `from_seq`.
pub(crate) fn never<'t>(
    t: &'t Timeline,
    clause: &Clause,
    from_seq: u64,
    mut bad: impl FnMut(&State<'t>, &'t Entry) -> Option<Breach>,
) -> Result<(), Violation> {
    always(t, clause, from_seq, |s, e| bad(s, e).map_or(Ok(()), Err))
}

/// Checks that `bad` reports no breach for any single entry with seq >=
/// `from_seq` (no state is built: for properties of entries alone).
pub(crate) fn no_entry<'t>(
    t: &'t Timeline,
    clause: &Clause,
    from_seq: u64,
    mut bad: impl FnMut(&'t Entry) -> Option<Breach>,
) -> Result<(), Violation> {
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if let Some(b) = bad(e) {
            return Err(Violation::at_entry(t, clause, e.seq, b));
        }
    }
    Ok(())
}

/// Checks that the first entry (seq >= `from_seq`) matching `marks(name)`
/// happens in the order of `names`: no name is marked while an earlier name
/// is not yet marked, and every name is marked. `what` names the event in
/// messages (e.g. "deleted").
pub(crate) fn in_order(
    t: &Timeline,
    clause: &Clause,
    from_seq: u64,
    names: &[&str],
    what: &str,
    mut marks: impl FnMut(&Entry) -> bool,
) -> Result<(), Violation> {
    let index: std::collections::HashMap<&str, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut first: Vec<Option<u64>> = vec![None; names.len()];
    let skip = usize::try_from(from_seq).unwrap_or(usize::MAX);
    for e in t.entries().iter().skip(skip) {
        if let Some(&i) = index.get(e.name.as_str()) {
            if first[i].is_none() && marks(e) {
                first[i] = Some(e.seq);
            }
        }
    }
    // The first breach: name i marked at s while some earlier name was not
    // marked before s.
    let mut worst: Option<(u64, usize)> = None;
    let mut prefix_max: Option<u64> = None;
    let mut prefix_missing = false;
    for (i, s) in first.iter().enumerate() {
        if let Some(s) = *s {
            let early = prefix_missing || prefix_max.is_some_and(|m| m > s);
            if early && worst.is_none_or(|(w, _)| s < w) {
                worst = Some((s, i));
            }
        }
        match *s {
            Some(s) => prefix_max = prefix_max.max(Some(s)),
            None => prefix_missing = true,
        }
    }
    if let Some((s, i)) = worst {
        let pending: Vec<String> = names[..i]
            .iter()
            .zip(&first)
            .filter(|(_, f)| f.is_none_or(|f| f > s))
            .map(|(n, _)| n.to_string())
            .collect();
        let msg = format!(
            "{} was {what} while {} {} not yet {what}; expected order: {}",
            names[i],
            pending.join(", "),
            if pending.len() == 1 { "was" } else { "were" },
            names.join(", ")
        );
        let mut pods = vec![names[i].to_string()];
        pods.extend(pending);
        return Err(Violation::at_entry(t, clause, s, Breach::new(msg, pods)));
    }
    let missing: Vec<String> = names
        .iter()
        .zip(&first)
        .filter(|(_, f)| f.is_none())
        .map(|(n, _)| n.to_string())
        .collect();
    if !missing.is_empty() {
        let msg = format!("never {what}: {}", missing.join(", "));
        return Err(Violation::at_entry(
            t,
            clause,
            t.next_seq().saturating_sub(1),
            Breach::new(msg, missing),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
