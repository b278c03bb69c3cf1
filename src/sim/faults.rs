//! The one place every API request passes: a bounded request log and a list
//! of fault rules (fail with a status code, or delay) matched against requests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

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
}

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
            && self.times != Some(0)
    }
}

/// The decision for one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decision {
    /// Total delay to apply first.
    pub delay: Duration,
    /// Error to answer with instead of serving.
    pub fail: Option<ApiError>,
}

/// Identifies an installed rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleId(u64);

struct Inner {
    log: VecDeque<RequestRecord>,
    capacity: usize,
    seq: u64,
    rules: Vec<(RuleId, FaultRule)>,
    next_rule: u64,
}

/// Shared request log and fault rules (cheap clone handle).
#[derive(Clone)]
pub struct Faults {
    inner: Arc<Mutex<Inner>>,
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
            })),
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
        for (_, rule) in inner.rules.iter_mut() {
            if !rule.matches(&record) {
                continue;
            }
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
                }
            }
        }
        inner.log.push_back(record);
        while inner.log.len() > inner.capacity {
            inner.log.pop_front();
        }
        decision
    }

    /// The recorded requests, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.lock().log.iter().cloned().collect()
    }

    /// Forgets the recorded requests.
    pub fn clear_log(&self) {
        self.lock().log.clear();
    }

    /// Installs a rule.
    pub fn add_rule(&self, rule: FaultRule) -> RuleId {
        let mut inner = self.lock();
        let id = RuleId(inner.next_rule);
        inner.next_rule += 1;
        inner.rules.push((id, rule));
        id
    }

    /// Removes a rule.
    pub fn remove_rule(&self, id: RuleId) {
        self.lock().rules.retain(|(i, _)| *i != id);
    }

    /// Removes every rule.
    pub fn clear_rules(&self) {
        self.lock().rules.clear();
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
mod tests {
    use super::*;

    fn req(verb: &str, resource: &str) -> RequestRecord {
        RequestRecord {
            verb: verb.into(),
            resource: resource.into(),
            ..Default::default()
        }
    }

    #[test]
    fn log_is_bounded_and_ordered() {
        let f = Faults::new(2);
        for v in ["get", "list", "watch"] {
            f.on_request(req(v, "pods"));
        }
        let log = f.requests();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].verb, "list");
        assert_eq!(log[1].seq, 3);
    }

    #[test]
    fn rules_match_and_count_down() {
        let f = Faults::new(10);
        let id = f.add_rule(FaultRule {
            verb: Some("create".into()),
            resource: Some("pods".into()),
            actions: vec![
                FaultAction::Delay(Duration::from_millis(5)),
                FaultAction::Fail {
                    code: 500,
                    message: "boom".into(),
                },
            ],
            times: Some(1),
            ..Default::default()
        });
        assert_eq!(f.on_request(req("get", "pods")), Decision::default());
        let d = f.on_request(req("create", "pods"));
        assert_eq!(d.delay, Duration::from_millis(5));
        assert_eq!(d.fail.as_ref().map(|e| e.code), Some(500));
        assert!(f.on_request(req("create", "pods")).fail.is_none());
        f.remove_rule(id);
        f.clear_log();
        assert!(f.requests().is_empty());
    }
}
