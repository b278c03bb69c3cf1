//! Splitting the scenarios over N CI jobs (`--shard I/N`).
//!
//! A scenario belongs to shard `hash(key) % N + 1`, where the key is its
//! `path:line` ([`scenario_key`]) and the hash is 64-bit FNV-1a: stable
//! across runs, machines and Rust versions, so N jobs of one matrix cover
//! every scenario exactly once. Adding a scenario never moves another one
//! to a different shard.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// One shard of N, 1-based: `--shard 2/3` is `Shard { index: 2, total: 3 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, in `1..=total`.
    pub index: usize,
    /// How many shards.
    pub total: usize,
}

impl Shard {
    /// Whether the scenario with this key runs in this shard.
    pub fn contains(&self, scenario_key: &str) -> bool {
        shard(self.index, self.total, scenario_key)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `I/N` with `1 <= I <= N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| format!("invalid shard `{s}`: {why}");
        let (i, n) = s
            .trim()
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, e.g. 1/2"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("I is not a whole number"))?;
        let total: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if total == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index == 0 || index > total {
            return Err(bad(&format!("I must be between 1 and {total}")));
        }
        Ok(Self { index, total })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

fn fnv1a(text: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    text.bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// Whether the scenario with `scenario_key` belongs to shard `index` of
/// `total` (1-based). An index outside `1..=total` holds nothing.
pub(crate) fn shard(index: usize, total: usize, scenario_key: &str) -> bool {
    if total == 0 || index == 0 || index > total {
        return false;
    }
    let total = total as u64;
    (fnv1a(scenario_key) % total) as usize + 1 == index
}

/// The key a scenario is sharded by: `features/base/identity.feature:10`,
/// with `/` separators and no leading `./`, so every job of a matrix (run
/// from the repository root) computes the same key. For an outline's
/// example, give the line of its example row.
pub(crate) fn scenario_key(path: &Path, line: usize) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.trim_start_matches("./");
    format!("{text}:{line}")
}
