//! The one place every API request passes: a bounded request log and a list
//! of fault rules matched against requests. A rule selects among the requests
//! it matches deterministically (every one, the Nth, every k-th, or a seeded
//! fraction), counts its hits, and acts: fail with a status code, delay,
//! notify a listener once the response is produced, or end a watch early
//! (dropped, or with a 410 `Expired` error event so the client relists).
//!
//! Stale views ([`StaleView`]: one client served the cluster as it was N
//! resource versions or D ago) are installed here too, sharing rule ids and
//! hit counts; the read and watch handlers ask [`Faults::stale_view_for`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc::UnboundedSender;

use super::stale::StaleView;
use super::status::ApiError;

/// What a request addressed, in apiserver `RequestInfo` terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestRecord {
    /// Sequence number (1-based, in arrival order).
    pub seq: u64,
    /// Arrival time.
    pub at: Option<SystemTime>,
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, or the HTTP method for non-resource paths.
    pub verb: String,
    /// API group ("" for core).
    pub group: String,
    /// Plural resource ("" for non-resource paths).
    pub resource: String,
    /// Namespace ("" if none).
    pub namespace: String,
    /// Object name ("" if none).
    pub name: String,
    /// Subresource ("" if none).
    pub subresource: String,
    /// The request path.
    pub path: String,
    /// The `User-Agent` header.
    pub user_agent: String,
}

/// What a matching rule does.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultAction {
    /// Answer with a Status error of this code and message instead of serving.
    Fail {
        /// HTTP code (e.g. 500, 409, 429).
        code: u16,
        /// Status message.
        message: String,
    },
    /// Wait before serving.
    Delay(Duration),
    /// Send the request to a listener once its response has been produced
    /// (the object is written, or the error decided).
    Notify(Listener),
    /// After serving the request, fail every later request whose user agent
    /// contains the rule's `user_agent_contains` with 503 until
    /// [`Faults::lift_fence`]: the client is down from this request on (a
    /// crash right after it), while a restart is arranged.
    Fence,
    /// Serve a watch, then end it after this long as if the connection dropped.
    DropWatch(Duration),
    /// Serve a watch, then after this long send an `ERROR` event with
    /// 410 `Expired` and end it: the client must relist.
    ExpireWatch(Duration),
}

/// Where [`FaultAction::Notify`] sends the requests it selects.
#[derive(Clone, Debug)]
pub struct Listener(pub UnboundedSender<RequestRecord>);

impl PartialEq for Listener {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_channel(&other.0)
    }
}

/// Which of the requests a rule matches it acts on; deterministic for a
/// given sequence of requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Occurrence {
    /// Every matching request.
    #[default]
    Every,
    /// Only the Nth matching request (1-based).
    Nth(u64),
    /// The k-th, 2k-th, ... matching request.
    EveryKth(u64),
    /// A fraction (per mille) of the matching requests, chosen by a hash of
    /// the seed and the request's position among the matching ones.
    Fraction {
        /// Selected requests per thousand.
        per_mille: u32,
        /// The seed.
        seed: u64,
    },
}

impl Occurrence {
    /// Whether the `n`th matching request (1-based) is selected.
    pub fn selects(&self, n: u64) -> bool {
        match *self {
            Occurrence::Every => true,
            Occurrence::Nth(k) => n == k,
            Occurrence::EveryKth(k) => k > 0 && n.is_multiple_of(k),
            Occurrence::Fraction { per_mille, seed } => {
                splitmix(seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % 1000 < u64::from(per_mille)
            }
        }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The verbs that change state.
pub const WRITE_VERBS: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// A rule; `None` fields match anything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultRule {
    /// Verb to match.
    pub verb: Option<String>,
    /// Resource to match.
    pub resource: Option<String>,
    /// Namespace to match.
    pub namespace: Option<String>,
    /// Name to match.
    pub name: Option<String>,
    /// Subresource to match (`Some("")` matches only the main resource).
    pub subresource: Option<String>,
    /// User-Agent substring to match.
    pub user_agent_contains: Option<String>,
    /// Match only writes (see [`WRITE_VERBS`]).
    pub writes_only: bool,
    /// Which matching requests the actions apply to.
    pub select: Occurrence,
    /// What to do.
    pub actions: Vec<FaultAction>,
    /// How many more requests the rule applies to (`None` = unlimited).
    pub times: Option<u32>,
}

impl FaultRule {
    /// Whether the rule applies to a request.
    pub fn matches(&self, r: &RequestRecord) -> bool {
        let eq = |want: &Option<String>, got: &str| want.as_deref().is_none_or(|w| w == got);
        eq(&self.verb, &r.verb)
            && eq(&self.resource, &r.resource)
            && eq(&self.namespace, &r.namespace)
            && eq(&self.name, &r.name)
            && eq(&self.subresource, &r.subresource)
            && self
                .user_agent_contains
                .as_deref()
                .is_none_or(|s| r.user_agent.contains(s))
            && (!self.writes_only || WRITE_VERBS.contains(&r.verb.as_str()))
            && self.times != Some(0)
    }
}

/// How often a rule matched and acted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hits {
    /// Requests the rule matched.
    pub matched: u64,
    /// Requests it acted on (selected among the matched).
    pub applied: u64,
}

/// How a watch is ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEnd {
    /// The stream just ends.
    Drop(Duration),
    /// An `ERROR` event with 410 `Expired`, then the end.
    Expire(Duration),
}

/// Notifications that fire when the decision is dropped, i.e. after the
/// request handler has produced its response (the handler keeps the
/// decision alive until it returns).
#[derive(Debug, Default)]
pub struct AfterResponse(Vec<(UnboundedSender<RequestRecord>, RequestRecord)>);

impl AfterResponse {
    /// How many notifications are pending.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is pending.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl PartialEq for AfterResponse {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
    }
}

impl Drop for AfterResponse {
    fn drop(&mut self) {
        for (tx, record) in self.0.drain(..) {
            let _ = tx.send(record);
        }
    }
}

/// The decision for one request.
#[derive(Debug, Default, PartialEq)]
pub struct Decision {
    /// Total delay to apply first.
    pub delay: Duration,
    /// Error to answer with instead of serving.
    pub fail: Option<ApiError>,
    /// Listeners told about the request when this decision is dropped.
    pub after_response: AfterResponse,
}

/// Identifies an installed rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleId(u64);

struct Inner {
    log: VecDeque<RequestRecord>,
    capacity: usize,
    seq: u64,
    rules: Vec<(RuleId, FaultRule, Hits)>,
    next_rule: u64,
    watch_ends: VecDeque<(WatchKey, WatchEnd)>,
    fences: Vec<String>,
    stale: Vec<(RuleId, StaleView, Hits)>,
    holds: Vec<(RuleId, CollectorHold)>,
}

impl Inner {
    /// A new rule's id.
    fn next_id(&mut self) -> RuleId {
        let id = RuleId(self.next_rule);
        self.next_rule += 1;
        id
    }
}

/// The garbage collector held off one namespace: until `until` it neither
/// deletes nor changes that namespace's objects, as if its work queue had
/// not reached them yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectorHold {
    /// The namespace left alone.
    pub namespace: String,
    /// When the collector takes it up again.
    pub until: std::time::Instant,
}

/// Which watch a pending [`WatchEnd`] is for: user agent, resource, namespace.
type WatchKey = (String, String, String);

/// At most this many watch ends wait for their watch to be served.
const PENDING_WATCH_ENDS: usize = 64;

/// Shared request log and fault rules (cheap clone handle).
#[derive(Clone)]
pub struct Faults {
    inner: Arc<Mutex<Inner>>,
    /// Bumped when a stale view or a collector hold is installed or ended,
    /// to wake watches and the garbage collector.
    views: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Faults {
    /// A log keeping the last `capacity` requests and no rules.
    pub fn new(capacity: usize) -> Self {
        Faults {
            inner: Arc::new(Mutex::new(Inner {
                log: VecDeque::new(),
                capacity: capacity.max(1),
                seq: 0,
                rules: Vec::new(),
                next_rule: 1,
                watch_ends: VecDeque::new(),
                fences: Vec::new(),
                stale: Vec::new(),
                holds: Vec::new(),
            })),
            views: Arc::new(tokio::sync::watch::channel(0).0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Records a request and decides what the rules do to it.
    pub fn on_request(&self, mut record: RequestRecord) -> Decision {
        let mut inner = self.lock();
        inner.seq += 1;
        record.seq = inner.seq;
        record.at = Some(SystemTime::now());
        let mut decision = Decision::default();
        if inner
            .fences
            .iter()
            .any(|f| record.user_agent.contains(f.as_str()))
        {
            decision.fail = Some(fault_error(
                503,
                "the client is fenced off by a fault rule (crashed)",
            ));
            inner.log.push_back(record);
            while inner.log.len() > inner.capacity {
                inner.log.pop_front();
            }
            return decision;
        }
        let mut watch_end = None;
        let mut fence = Vec::new();
        for (_, rule, hits) in inner.rules.iter_mut() {
            if !rule.matches(&record) {
                continue;
            }
            hits.matched += 1;
            if !rule.select.selects(hits.matched) {
                continue;
            }
            hits.applied += 1;
            if let Some(t) = rule.times.as_mut() {
                *t -= 1;
            }
            for a in &rule.actions {
                match a {
                    FaultAction::Delay(d) => decision.delay += *d,
                    FaultAction::Fail { code, message } if decision.fail.is_none() => {
                        decision.fail = Some(fault_error(*code, message));
                    }
                    FaultAction::Fail { .. } => {}
                    FaultAction::Notify(l) => decision
                        .after_response
                        .0
                        .push((l.0.clone(), record.clone())),
                    FaultAction::DropWatch(d) if record.verb == "watch" => {
                        watch_end = watch_end.or(Some(WatchEnd::Drop(*d)))
                    }
                    FaultAction::ExpireWatch(d) if record.verb == "watch" => {
                        watch_end = watch_end.or(Some(WatchEnd::Expire(*d)))
                    }
                    FaultAction::DropWatch(_) | FaultAction::ExpireWatch(_) => {}
                    FaultAction::Fence => {
                        fence.push(rule.user_agent_contains.clone().unwrap_or_default())
                    }
                }
            }
        }
        inner.fences.extend(fence);
        if let (Some(end), None) = (watch_end, &decision.fail) {
            let key = (
                record.user_agent.clone(),
                record.resource.clone(),
                record.namespace.clone(),
            );
            inner.watch_ends.push_back((key, end));
            while inner.watch_ends.len() > PENDING_WATCH_ENDS {
                inner.watch_ends.pop_front();
            }
        }
        inner.log.push_back(record);
        while inner.log.len() > inner.capacity {
            inner.log.pop_front();
        }
        decision
    }

    /// Takes the early end decided for a watch being served to this user
    /// agent on this resource and namespace ("" for all namespaces), if any.
    pub fn take_watch_end(
        &self,
        user_agent: &str,
        resource: &str,
        namespace: &str,
    ) -> Option<WatchEnd> {
        let mut inner = self.lock();
        let i = inner
            .watch_ends
            .iter()
            .position(|((a, r, n), _)| a == user_agent && r == resource && n == namespace)?;
        inner.watch_ends.remove(i).map(|(_, end)| end)
    }

    /// Lets the requests of a fenced-off client through again.
    pub fn lift_fence(&self, user_agent_contains: &str) {
        self.lock().fences.retain(|f| f != user_agent_contains);
    }

    /// How often a rule matched and acted (`None` for an unknown rule). For
    /// a stale view: reads it applied to, and reads it answered behind the
    /// current state (a list or get served old, a watch event held back).
    pub fn hits(&self, id: RuleId) -> Option<Hits> {
        let inner = self.lock();
        let rule = inner.rules.iter().find(|(i, ..)| *i == id);
        let view = || inner.stale.iter().find(|(i, ..)| *i == id);
        rule.map(|(_, _, h)| *h)
            .or_else(|| view().map(|(_, _, h)| *h))
    }

    /// Holds the garbage collector off a namespace until the hold's time is
    /// up (or [`Self::end_collector_holds`]).
    pub fn add_collector_hold(&self, hold: CollectorHold) -> RuleId {
        let mut inner = self.lock();
        let id = inner.next_id();
        inner.holds.push((id, hold));
        drop(inner);
        self.views.send_modify(|n| *n += 1);
        id
    }

    /// Whether the collector must leave `namespace` alone now.
    pub fn collector_holds(&self, namespace: &str) -> bool {
        let now = std::time::Instant::now();
        self.lock()
            .holds
            .iter()
            .any(|(_, h)| h.namespace == namespace && h.until > now)
    }

    /// Ends the holds on `namespace` now.
    pub fn end_collector_holds(&self, namespace: &str) {
        let now = std::time::Instant::now();
        for (_, h) in self.lock().holds.iter_mut() {
            if h.namespace == namespace && h.until > now {
                h.until = now;
            }
        }
        self.views.send_modify(|n| *n += 1);
    }

    /// When the next collector hold still in force ends.
    pub fn next_hold_end(&self) -> Option<std::time::Instant> {
        let now = std::time::Instant::now();
        self.lock()
            .holds
            .iter()
            .map(|(_, h)| h.until)
            .filter(|u| *u > now)
            .min()
    }

    /// Serves the matching clients a stale view until its time is up.
    pub fn add_stale_view(&self, view: StaleView) -> RuleId {
        let mut inner = self.lock();
        let id = inner.next_id();
        inner.stale.push((id, view, Hits::default()));
        drop(inner);
        self.views.send_modify(|n| *n += 1);
        id
    }

    /// A receiver that changes whenever a stale view or a collector hold is
    /// installed or ended.
    pub fn subscribe_views(&self) -> tokio::sync::watch::Receiver<u64> {
        self.views.subscribe()
    }

    /// The stale view in force for a client now, if any.
    pub fn stale_view_for(&self, user_agent: &str, resource: &str) -> Option<(RuleId, StaleView)> {
        let now = std::time::Instant::now();
        self.lock()
            .stale
            .iter()
            .find(|(_, v, _)| v.active(now) && v.serves(user_agent, resource))
            .map(|(id, v, _)| (*id, v.clone()))
    }

    /// Ends a stale view now: its clients' watches catch up.
    pub fn end_stale_view(&self, id: RuleId) {
        let now = std::time::Instant::now();
        for (i, v, _) in self.lock().stale.iter_mut() {
            if *i == id && v.until > now {
                v.until = now;
            }
        }
        self.views.send_modify(|n| *n += 1);
    }

    /// Counts a read a stale view applied to, and whether it was answered
    /// behind the current state.
    pub fn count_stale(&self, id: RuleId, matched: bool, behind: bool) {
        if let Some((_, _, h)) = self.lock().stale.iter_mut().find(|(i, ..)| *i == id) {
            h.matched += u64::from(matched);
            h.applied += u64::from(behind);
        }
    }

    /// The recorded requests, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.lock().log.iter().cloned().collect()
    }

    /// The sequence number of the newest recorded request (0 before any).
    pub fn last_seq(&self) -> u64 {
        self.lock().log.back().map_or(0, |r| r.seq)
    }

    /// The sequence number of the oldest request still recorded, and the
    /// recorded requests after `seq` that `keep` accepts, oldest first:
    /// only those are copied out of the log.
    pub fn requests_after(
        &self,
        seq: u64,
        keep: impl Fn(&RequestRecord) -> bool,
    ) -> (Option<u64>, Vec<RequestRecord>) {
        let inner = self.lock();
        let first = inner.log.front().map(|r| r.seq);
        let start = inner.log.partition_point(|r| r.seq <= seq);
        let kept = inner
            .log
            .range(start..)
            .filter(|r| keep(r))
            .cloned()
            .collect();
        (first, kept)
    }

    /// Forgets the recorded requests.
    pub fn clear_log(&self) {
        self.lock().log.clear();
    }

    /// Installs a rule.
    pub fn add_rule(&self, rule: FaultRule) -> RuleId {
        let mut inner = self.lock();
        let id = inner.next_id();
        inner.rules.push((id, rule, Hits::default()));
        id
    }

    /// Removes a rule.
    pub fn remove_rule(&self, id: RuleId) {
        self.lock().rules.retain(|(i, ..)| *i != id);
    }

    /// Removes every rule and stale view.
    pub fn clear_rules(&self) {
        let mut inner = self.lock();
        inner.rules.clear();
        inner.stale.clear();
        drop(inner);
        self.views.send_modify(|n| *n += 1);
    }
}

fn fault_error(code: u16, message: &str) -> ApiError {
    let reason = match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        409 => "Conflict",
        410 => "Expired",
        422 => "Invalid",
        429 => "TooManyRequests",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "InternalError",
    };
    let mut e = ApiError::new(code, reason, message);
    if code == 429 {
        e.retry_after_seconds = Some(1);
    }
    e
}

#[cfg(test)]
mod tests;
