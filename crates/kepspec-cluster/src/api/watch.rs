//! `watch`: newline-delimited JSON events over a chunked response.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use rand::Rng;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::super::faults::{RuleId, WatchEnd};
use super::super::resources::ResourceInfo;
use super::super::selector::FieldRequirement;
use super::super::stale::StaleView;
use super::super::status::{ApiError, Cause};
use super::super::store::{Event, EventType, Gr, Store};
use super::read::{output, Selectors};
use super::{ApiState, Req};

/// Where a watch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// Synthetic ADDED events for the current state first (`resourceVersion` "" or "0",
    /// or `sendInitialEvents=true`).
    Initial,
    /// Only changes after this resourceVersion.
    After(u64),
}

/// The type a stored event has for one watcher, if it sees it: a change
/// into or out of its selection is an ADDED or a DELETED.
pub(super) fn translate(ev: &Event, sel: &Selectors) -> Option<EventType> {
    let now = sel.matches(&ev.object);
    match ev.kind {
        EventType::Added | EventType::Deleted => now.then_some(ev.kind),
        EventType::Modified => {
            let before = ev.prev.as_ref().is_some_and(|p| sel.matches(p));
            match (before, now) {
                (true, true) => Some(EventType::Modified),
                (false, true) => Some(EventType::Added),
                (true, false) => Some(EventType::Deleted),
                (false, false) => None,
            }
        }
    }
}

/// One event: a JSON line, or a protobuf frame when the watch is in
/// protobuf (whose kind [`wants_protobuf`] checked has a protobuf form).
fn line(protobuf: bool, kind: &str, object: &Value) -> Bytes {
    if protobuf {
        if let Some(frame) = super::protobuf::watch_frame(kind, object) {
            return frame;
        }
        tracing::warn!("a {kind} watch event has no protobuf form; sent as JSON");
    }
    json_line(kind, object)
}

/// One event as a JSON line, written from `object` as it is (no copy).
fn json_line(kind: &str, object: &impl serde::Serialize) -> Bytes {
    #[derive(serde::Serialize)]
    struct Line<'a, T> {
        #[serde(rename = "type")]
        kind: &'a str,
        object: &'a T,
    }
    let mut v = serde_json::to_vec(&Line { kind, object }).unwrap_or_default();
    v.push(b'\n');
    Bytes::from(v)
}

fn bookmark(
    protobuf: bool,
    info: &ResourceInfo,
    rv: u64,
    initial_end: bool,
    partial: Option<&str>,
) -> Bytes {
    let mut meta = json!({"resourceVersion": rv.to_string(), "creationTimestamp": null});
    if initial_end {
        meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    let object = json!({"kind": info.kind, "apiVersion": info.api_version(), "metadata": meta});
    match partial {
        Some(version) => line(
            protobuf,
            "BOOKMARK",
            &super::partial::object(version, &object),
        ),
        None => line(protobuf, "BOOKMARK", &object),
    }
}

/// kube-apiserver's `validateWatchOptions` (k8s.io/apimachinery
/// pkg/apis/meta/internalversion/validation), with the WatchList feature on:
/// `sendInitialEvents` needs `resourceVersionMatch=NotOlderThan`, and a
/// `resourceVersionMatch` needs `sendInitialEvents`. The 422 names
/// `ListOptions.meta.k8s.io`, as the list handler's `NewInvalid` does.
pub(super) fn check_watch_options(
    send_initial: Option<&str>,
    matched: &str,
) -> Result<(), ApiError> {
    let forbidden = |message: &str| Cause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {message}"),
        field: "resourceVersionMatch".into(),
    };
    let mut causes = Vec::new();
    if send_initial.is_some() && matched != "NotOlderThan" {
        causes.push(forbidden(
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if !matched.is_empty() {
        if send_initial.is_none() {
            causes.push(forbidden(
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        if matched != "NotOlderThan" {
            causes.push(Cause {
                reason: "FieldValueNotSupported".into(),
                message: format!(
                    "Unsupported value: {matched:?}: supported values: \"NotOlderThan\""
                ),
                field: "resourceVersionMatch".into(),
            });
        }
    }
    if causes.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid("meta.k8s.io", "ListOptions", "", causes))
    }
}

/// `GET ...?watch=true`.
pub(super) fn watch(req: &Req<'_>) -> Result<Response, ApiError> {
    check_watch_options(
        req.params.get("sendInitialEvents").map(String::as_str),
        req.params
            .get("resourceVersionMatch")
            .map_or("", String::as_str),
    )?;
    let mut sel = Selectors::from_req(req)?;
    if !req.name.is_empty() {
        sel.fields.0.push(FieldRequirement {
            field: "metadata.name".into(),
            value: req.name.to_string(),
            negated: false,
        });
    }
    let p = req.params;
    let rv_param = p.get("resourceVersion").map(String::as_str).unwrap_or("");
    let send_initial = p.get("sendInitialEvents").map(String::as_str) == Some("true");
    let start = if send_initial || rv_param.is_empty() || rv_param == "0" {
        Start::Initial
    } else {
        Start::After(rv_param.parse().map_err(|_| {
            ApiError::bad_request(format!("invalid resource version: {rv_param:?}"))
        })?)
    };
    let bookmarks = matches!(
        p.get("allowWatchBookmarks").map(String::as_str),
        Some("true" | "1")
    );
    let timeout = match p.get("timeoutSeconds") {
        Some(t) => Duration::from_secs(
            t.parse::<u64>()
                .map_err(|_| ApiError::bad_request(format!("invalid timeoutSeconds {t:?}")))?,
        ),
        None => Duration::from_secs(rand::rng().random_range(1800..3600)),
    };
    let ns = (!req.all_namespaces).then(|| req.ns.to_string());
    let agent = req.user_agent();
    let end = req
        .state
        .faults
        .take_watch_end(agent, &req.info.plural, req.ns);
    let protobuf = wants_protobuf(req);
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let job = WatchJob {
        state: req.state.clone(),
        info: req.info.clone(),
        ns,
        sel,
        start,
        bookmarks,
        initial_end_bookmark: send_initial && bookmarks,
        timeout,
        table: req.table(),
        metadata_only: req.metadata_only(),
        protobuf,
        end,
        agent: agent.to_string(),
    };
    tokio::spawn(job.run(tx));
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    });
    let body = Body::from_stream(stream);
    let content_type = if protobuf {
        super::protobuf::WATCH_MEDIA_TYPE
    } else {
        "application/json"
    };
    Ok((StatusCode::OK, [(header::CONTENT_TYPE, content_type)], body).into_response())
}

/// Whether the watch goes out in protobuf: the client takes it first, no
/// Table is asked for, and the kind (or PartialObjectMetadata) has a
/// protobuf form.
fn wants_protobuf(req: &Req<'_>) -> bool {
    super::protobuf::wanted(req.headers)
        && req.table().is_none()
        && (req.metadata_only().is_some()
            || crate::proto::kind(&req.info.api_version(), &req.info.kind).is_some())
}

struct WatchJob {
    state: ApiState,
    info: ResourceInfo,
    ns: Option<String>,
    sel: Selectors,
    start: Start,
    bookmarks: bool,
    initial_end_bookmark: bool,
    timeout: Duration,
    table: Option<String>,
    /// The `meta.k8s.io` version of PartialObjectMetadata events, when the
    /// client asked for metadata only.
    metadata_only: Option<&'static str>,
    /// Events go out as protobuf frames.
    protobuf: bool,
    /// An early end a fault rule decided for this watch.
    end: Option<WatchEnd>,
    /// The client's user agent (stale views are looked up by it).
    agent: String,
}

type Tx = mpsc::Sender<Bytes>;

impl WatchJob {
    fn gr(&self) -> Gr {
        self.info.gr()
    }

    fn event(&self, kind: &str, obj: &Value) -> Bytes {
        match &self.table {
            Some(include) => {
                let rv = obj["metadata"]["resourceVersion"].clone();
                let t = super::table::table(
                    &self.info,
                    std::slice::from_ref(obj),
                    json!({"resourceVersion": rv}),
                    include,
                );
                line(false, kind, &t)
            }
            None => match self.metadata_only {
                Some(version) => line(self.protobuf, kind, &super::partial::object(version, obj)),
                None if self.protobuf || super::super::convert::is_events_v1(&self.info) => {
                    line(self.protobuf, kind, &output(&self.info, Value::clone(obj)))
                }
                None => json_line(kind, &super::read::Served::whole(&self.info, obj)),
            },
        }
    }

    /// The line of a stored event seen as `kind`: made once per encoding
    /// and shared by every watcher asking for the same one (tables, which
    /// depend on the watcher's options, are made for each).
    fn stored_event(&self, kind: EventType, ev: &Event) -> Bytes {
        if self.table.is_some() {
            return self.event(kind.as_str(), &ev.object);
        }
        let key = format!(
            "{}|{}|{}|{}|{}",
            kind.as_str(),
            self.info.api_version(),
            self.info.kind,
            self.metadata_only.unwrap_or(""),
            if self.protobuf { "protobuf" } else { "json" }
        );
        ev.lines.get(&key, || self.event(kind.as_str(), &ev.object))
    }

    /// The stale view in force for this watch now, counted as a read it
    /// applies to when `count` (once per watch).
    fn stale(&self, count: bool) -> Option<(RuleId, StaleView)> {
        let found = self
            .state
            .faults
            .stale_view_for(&self.agent, &self.info.plural);
        if let (Some((id, _)), true) = (&found, count) {
            self.state.faults.count_stale(*id, true, false);
        }
        found
    }

    /// The current state, or the state a stale view shows.
    fn state_now(&self, store: &Store) -> (Vec<Arc<Value>>, u64) {
        let gr = self.gr();
        let ns = self.ns.as_deref();
        if let Some((id, view)) = self.stale(true) {
            let at = view.view(store, Instant::now());
            if let Ok(items) = store.list_at(&gr, ns, at) {
                let behind = store.changed_since(&gr, ns, at);
                self.state.faults.count_stale(id, false, behind);
                return (items, at);
            }
        }
        store.list(&gr, ns)
    }

    async fn initial(&self, store: &Store, tx: &mut Tx) -> Result<u64, ()> {
        let (items, rv) = self.state_now(store);
        for o in items.iter().filter(|o| self.sel.matches(o)) {
            tx.send(self.event("ADDED", o)).await.map_err(|_| ())?;
        }
        if self.initial_end_bookmark {
            tx.send(bookmark(
                self.protobuf,
                &self.info,
                rv,
                true,
                self.metadata_only,
            ))
            .await
            .map_err(|_| ())?;
        }
        Ok(rv)
    }

    async fn run(self, mut tx: Tx) {
        let store = self.state.store.clone();
        let mut changed = store.subscribe();
        let mut views = self.state.faults.subscribe_views();
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        let cut = match self.end {
            Some(WatchEnd::Drop(d) | WatchEnd::Expire(d)) => d,
            None => self.timeout,
        };
        let cut = tokio::time::sleep(cut);
        tokio::pin!(cut);
        let period = self.state.bookmark_interval.max(Duration::from_millis(10));
        let mut tick = tokio::time::interval(period);
        tick.reset();
        // The cacher's bookmark 2 s before the watch's deadline, so a client
        // resumes from as near now as it can (cache_watcher.go,
        // nextBookmarkTime); none when the deadline is nearer than that.
        let pre_timeout = self.timeout.checked_sub(Duration::from_secs(2));
        let mut pre_timeout_due = self.bookmarks && pre_timeout.is_some();
        let pre_deadline = tokio::time::sleep(pre_timeout.unwrap_or(self.timeout));
        tokio::pin!(pre_deadline);
        let mut last = match self.start {
            Start::Initial => match self.initial(&store, &mut tx).await {
                Ok(rv) => rv,
                Err(()) => return,
            },
            Start::After(rv) => rv,
        };
        let mut counted = matches!(self.start, Start::Initial);
        // Looked up again only when a view is installed or ended, or the one
        // in force runs out: not on every pass of this hot loop.
        let mut stale = None;
        let mut look_up = true;
        loop {
            // A view installed before a change must apply to it: the select
            // below may wake for the change first when both are ready.
            if views.has_changed().unwrap_or(false) {
                views.borrow_and_update();
                look_up = true;
            }
            let expired = stale
                .as_ref()
                .is_some_and(|(_, v): &(RuleId, StaleView)| !v.active(Instant::now()));
            if look_up || expired {
                stale = self.stale(!counted);
                counted |= stale.is_some();
                look_up = false;
            }
            let wake = match store.events_after(&self.gr(), self.ns.as_deref(), last) {
                Err(exp) => {
                    let e = ApiError::gone(format!(
                        "too old resource version: {} ({})",
                        exp.requested, exp.oldest
                    ));
                    let _ = tx.send(line(self.protobuf, "ERROR", &e.to_status())).await;
                    return;
                }
                Ok((events, rv)) => {
                    // A stale view delivers up to its resourceVersion and
                    // holds the rest until they become visible.
                    let view = match &stale {
                        Some((_, v)) => v.view(&store, Instant::now()),
                        None => rv,
                    };
                    let mut held = None;
                    for ev in &events {
                        let shown = translate(ev, &self.sel);
                        if let (Some((_, v)), true) = (&stale, ev.rv > view) {
                            if shown.is_some() {
                                held = Some(v.visible_at(ev.at));
                                break;
                            }
                            continue;
                        }
                        if let Some(kind) = shown {
                            let l = self.stored_event(kind, ev);
                            if tx.send(l).await.is_err() {
                                return;
                            }
                        }
                    }
                    if let (Some((id, _)), Some(_)) = (&stale, held) {
                        self.state.faults.count_stale(*id, false, true);
                    }
                    last = last.max(rv.min(view));
                    held
                }
            };
            let stale_wake = tokio::time::sleep_until(
                wake.unwrap_or_else(|| Instant::now() + self.timeout).into(),
            );
            tokio::select! {
                _ = stale_wake, if wake.is_some() => {}
                r = views.changed() => {
                    if r.is_err() {
                        return;
                    }
                    look_up = true;
                }
                r = changed.changed() => if r.is_err() { return; },
                _ = &mut deadline => return,
                _ = &mut cut, if self.end.is_some() => {
                    if matches!(self.end, Some(WatchEnd::Expire(_))) {
                        let e = ApiError::gone("the watch was closed by a fault rule; relist".to_string());
                        let _ = tx.send(line(self.protobuf, "ERROR", &e.to_status())).await;
                    }
                    return;
                }
                _ = self.state.shutdown.cancelled() => return,
                _ = tick.tick() => {
                    if self.bookmarks && tx.send(bookmark(self.protobuf, &self.info, last, false, self.metadata_only)).await.is_err() {
                        return;
                    }
                }
                _ = &mut pre_deadline, if pre_timeout_due => {
                    pre_timeout_due = false;
                    if tx.send(bookmark(self.protobuf, &self.info, last, false, self.metadata_only)).await.is_err() {
                        return;
                    }
                }
                _ = tx.closed() => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::selector::{FieldSelector, LabelSelector};
    use super::super::super::store::ObjKey;
    use super::*;

    fn ev(kind: EventType, prev: Option<Value>, obj: Value) -> Event {
        Event {
            rv: 5,
            kind,
            key: ObjKey::new(&Gr::new("", "pods"), "d", "p"),
            object: obj.into(),
            prev: prev.map(Into::into),
            at: std::time::Instant::now(),
            lines: Default::default(),
        }
    }

    #[test]
    fn watch_options_are_validated_as_kube_apiserver_does() {
        let msg =
            |s: Option<&str>, m: &str| check_watch_options(s, m).err().map(|e| e.message.clone());
        assert_eq!(msg(None, ""), None);
        assert_eq!(msg(Some("true"), "NotOlderThan"), None);
        assert_eq!(msg(Some("false"), "NotOlderThan"), None);
        assert_eq!(
            msg(Some("true"), "").as_deref(),
            Some("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
        );
        assert_eq!(
            msg(None, "NotOlderThan").as_deref(),
            Some("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
        );
        let e = check_watch_options(Some("true"), "Exact").unwrap_err();
        assert_eq!(e.code, 422);
        assert_eq!(e.causes.len(), 2);
    }

    #[test]
    fn selector_transitions_become_added_and_deleted() {
        let sel = Selectors {
            labels: LabelSelector::parse("app=web").unwrap(),
            fields: FieldSelector::default(),
        };
        let web = json!({"metadata": {"labels": {"app": "web"}}});
        let other = json!({"metadata": {"labels": {"app": "db"}}});
        let t = |p: &Value, n: &Value| {
            translate(&ev(EventType::Modified, Some(p.clone()), n.clone()), &sel)
        };
        assert_eq!(t(&web, &web), Some(EventType::Modified));
        assert_eq!(t(&other, &web), Some(EventType::Added));
        assert_eq!(t(&web, &other), Some(EventType::Deleted));
        assert_eq!(t(&other, &other), None);
        assert!(translate(&ev(EventType::Added, None, other), &sel).is_none());
    }

    /// A cluster without nodes and its default namespace's ConfigMaps.
    async fn config_maps() -> (
        super::super::super::EmbeddedCluster,
        kube::Api<k8s_openapi::api::core::v1::ConfigMap>,
    ) {
        use super::super::super::{ClusterConfig, EmbeddedCluster};
        let c = EmbeddedCluster::start(ClusterConfig {
            run_nodes: false,
            ..Default::default()
        })
        .await
        .unwrap();
        let api = kube::Api::namespaced(c.client().await.unwrap(), "default");
        (c, api)
    }

    #[tokio::test]
    async fn a_fault_rule_closes_a_watch_with_410_or_drops_it() {
        use super::super::super::faults::{FaultAction, FaultRule};
        use futures::StreamExt;
        use kube::api::{WatchEvent, WatchParams};

        let (c, api) = config_maps().await;
        for (action, expect_gone) in [
            (FaultAction::ExpireWatch(Duration::from_millis(100)), true),
            (FaultAction::DropWatch(Duration::from_millis(100)), false),
        ] {
            c.faults().clear_rules();
            c.faults().add_rule(FaultRule {
                verb: Some("watch".into()),
                resource: Some("configmaps".into()),
                actions: vec![action],
                times: Some(1),
                ..Default::default()
            });
            let stream = api
                .watch(&WatchParams::default().timeout(30), "0")
                .await
                .unwrap();
            let events: Vec<_> =
                tokio::time::timeout(Duration::from_secs(5), stream.collect::<Vec<_>>())
                    .await
                    .expect("the watch ends long before its timeout");
            let gone = events
                .iter()
                .any(|e| matches!(e, Ok(WatchEvent::Error(s)) if s.code == 410));
            assert_eq!(gone, expect_gone, "{events:?}");
        }
        c.shutdown().await;
    }

    #[tokio::test]
    async fn a_bookmark_comes_two_seconds_before_the_deadline() {
        use futures::StreamExt;
        use kube::api::{WatchEvent, WatchParams};

        let (c, api) = config_maps().await;
        let params = WatchParams::default().timeout(3).disable_bookmarks();
        let quiet: Vec<_> = api.watch(&params, "0").await.unwrap().collect().await;
        assert!(
            !quiet
                .iter()
                .any(|e| matches!(e, Ok(WatchEvent::Bookmark(_)))),
            "{quiet:?}"
        );
        let params = WatchParams::default().timeout(3);
        let started = std::time::Instant::now();
        let mut stream = api.watch(&params, "0").await.unwrap().boxed();
        let mut bookmark_at = None;
        while let Some(e) = stream.next().await {
            if matches!(e, Ok(WatchEvent::Bookmark(_))) && bookmark_at.is_none() {
                bookmark_at = Some(started.elapsed());
            }
        }
        // Not before deadline - 2 s (the periodic one is 10 s away); how
        // late it arrives depends on the machine, so no upper bound.
        let at = bookmark_at.expect("a bookmark before the deadline");
        assert!(at >= Duration::from_millis(900), "{at:?}");
        c.shutdown().await;
    }
}
