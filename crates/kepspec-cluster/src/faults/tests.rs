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

fn rule(select: Occurrence) -> FaultRule {
    FaultRule {
        resource: Some("pods".into()),
        writes_only: true,
        select,
        actions: vec![FaultAction::Fail {
            code: 409,
            message: "x".into(),
        }],
        ..Default::default()
    }
}

fn which(f: &Faults, n: u64) -> Vec<u64> {
    (1..=n)
        .filter(|_| f.on_request(req("delete", "pods")).fail.is_some())
        .collect()
}

#[test]
fn nth_and_every_kth_select_by_position_among_matching() {
    let f = Faults::new(100);
    let id = f.add_rule(rule(Occurrence::Nth(3)));
    f.on_request(req("get", "pods"));
    assert_eq!(which(&f, 6), vec![3]);
    assert_eq!(
        f.hits(id),
        Some(Hits {
            matched: 6,
            applied: 1
        })
    );
    f.clear_rules();
    let id = f.add_rule(rule(Occurrence::EveryKth(2)));
    assert_eq!(which(&f, 7), vec![2, 4, 6]);
    assert_eq!(
        f.hits(id),
        Some(Hits {
            matched: 7,
            applied: 3
        })
    );
}

#[test]
fn a_seeded_fraction_is_deterministic_and_about_right() {
    let pick = |seed| {
        let f = Faults::new(10);
        f.add_rule(rule(Occurrence::Fraction {
            per_mille: 200,
            seed,
        }));
        which(&f, 1000)
    };
    let a = pick(7);
    assert_eq!(a, pick(7));
    assert_ne!(a, pick(8));
    assert!((150..250).contains(&a.len()), "{}", a.len());
}

#[tokio::test]
async fn notify_fires_when_the_decision_is_dropped() {
    let f = Faults::new(10);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut r = rule(Occurrence::Nth(2));
    r.actions = vec![FaultAction::Notify(Listener(tx))];
    r.name = Some("web-1".into());
    f.add_rule(r);
    let mut del = req("delete", "pods");
    del.name = "web-1".into();
    drop(f.on_request(del.clone()));
    assert!(rx.try_recv().is_err());
    let d = f.on_request(del);
    assert_eq!(d.after_response.len(), 1);
    assert!(rx.try_recv().is_err(), "not before the response");
    drop(d);
    let got = rx.try_recv().expect("notified after the response");
    assert_eq!((got.seq, got.name.as_str()), (2, "web-1"));
}

#[test]
fn a_fence_stops_the_client_after_the_selected_request_until_lifted() {
    let f = Faults::new(10);
    f.add_rule(FaultRule {
        user_agent_contains: Some("ctl".into()),
        select: Occurrence::Nth(2),
        actions: vec![FaultAction::Fence],
        ..Default::default()
    });
    let mut r = req("create", "pods");
    r.user_agent = "ctl/1".into();
    assert!(f.on_request(r.clone()).fail.is_none());
    assert!(
        f.on_request(r.clone()).fail.is_none(),
        "the fencing request is served"
    );
    assert_eq!(f.on_request(r.clone()).fail.map(|e| e.code), Some(503));
    assert!(
        f.on_request(req("create", "pods")).fail.is_none(),
        "others pass"
    );
    f.lift_fence("ctl");
    assert!(f.on_request(r).fail.is_none());
}

#[test]
fn watch_ends_wait_for_their_watch() {
    let f = Faults::new(10);
    f.add_rule(FaultRule {
        verb: Some("watch".into()),
        actions: vec![FaultAction::ExpireWatch(Duration::from_millis(5))],
        ..Default::default()
    });
    let mut w = req("watch", "pods");
    w.user_agent = "ctl".into();
    f.on_request(w);
    f.on_request(req("get", "pods"));
    assert_eq!(f.take_watch_end("other", "pods", ""), None);
    assert_eq!(
        f.take_watch_end("ctl", "pods", ""),
        Some(WatchEnd::Expire(Duration::from_millis(5)))
    );
    assert_eq!(f.take_watch_end("ctl", "pods", ""), None);
}

#[test]
fn stale_views_are_found_by_user_agent_counted_and_ended() {
    use crate::stale::{Lag, StaleView};
    let f = Faults::new(10);
    let id = f.add_stale_view(StaleView {
        user_agent_contains: "ctl".into(),
        resource: None,
        lag: Lag::Versions(3),
        until: std::time::Instant::now() + Duration::from_secs(3600),
    });
    assert!(f.stale_view_for("kube-rs/5", "pods").is_none());
    let (found, view) = f.stale_view_for("ctl/1", "pods").expect("in force");
    assert_eq!((found, view.lag), (id, Lag::Versions(3)));
    f.count_stale(id, true, false);
    f.count_stale(id, true, true);
    assert_eq!(
        f.hits(id),
        Some(Hits {
            matched: 2,
            applied: 1
        })
    );
    let woken = f.subscribe_views();
    f.end_stale_view(id);
    assert!(woken.has_changed().unwrap_or(false), "watches are woken");
    assert!(f.stale_view_for("ctl/1", "pods").is_none());
    assert!(f.hits(id).is_some(), "its counts outlive it");
    f.clear_rules();
    assert!(f.hits(id).is_none());
}
