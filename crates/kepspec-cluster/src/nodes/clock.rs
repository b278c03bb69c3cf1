//! Time arithmetic, back-off and the runtime's ids.

use jiff::Timestamp;
use std::time::Duration;

/// `t + d`, saturating at `t`.
pub(super) fn plus(t: Timestamp, d: Duration) -> Timestamp {
    t.checked_add(d).unwrap_or(t)
}

/// Back-off after `attempt` failures: `base`, doubled each time, capped
/// at 30 × base (the kubelet's 10s..300s, scaled).
pub(super) fn backoff(base: Duration, attempt: u32) -> Duration {
    let factor = 1u32 << attempt.saturating_sub(1).min(5);
    (base * factor).min(base * 30)
}

/// A stable 64-hex-digit id derived from `seed` (container and image ids).
pub(super) fn hex_id(seed: &str) -> String {
    let mut out = String::with_capacity(64);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0u8..4 {
        for b in seed.bytes().chain([round]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out
}

/// The containerd id of a container incarnation.
pub(super) fn container_id(uid: &str, name: &str, restart: i32) -> String {
    format!(
        "containerd://{}",
        hex_id(&format!("{uid}/{name}/{restart}"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps_at_thirty_times() {
        let base = Duration::from_secs(10);
        assert_eq!(backoff(base, 1), base);
        assert_eq!(backoff(base, 2), base * 2);
        assert_eq!(backoff(base, 5), base * 16);
        assert_eq!(backoff(base, 6), base * 30);
        assert_eq!(backoff(base, 60), base * 30);
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        assert_eq!(hex_id("a").len(), 64);
        assert_eq!(hex_id("a"), hex_id("a"));
        assert_ne!(container_id("u", "app", 0), container_id("u", "app", 1));
        assert!(container_id("u", "app", 0).starts_with("containerd://"));
    }
}
