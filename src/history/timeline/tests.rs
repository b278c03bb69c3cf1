use super::*;
use serde_json::json;

fn pod(name: &str, rv: &str) -> Value {
    json!({"metadata": {"name": name, "uid": format!("u-{name}"), "resourceVersion": rv}})
}

#[test]
fn entries_are_sorted_by_numeric_resource_version() {
    let mut t = Timeline::new();
    t.push(Entry::new(
        Duration::from_millis(10),
        Kind::Pod,
        Change::Added,
        pod("a", "5"),
    ));
    t.push(Entry::new(
        Duration::from_millis(20),
        Kind::Pod,
        Change::Added,
        pod("c", "9"),
    ));
    let seq = t.push(Entry::new(
        Duration::from_millis(30),
        Kind::StatefulSet,
        Change::Modified,
        pod("b", "7"),
    ));
    assert_eq!(seq, 1);
    let names: Vec<_> = t.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let seqs: Vec<_> = t.entries().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2]);
    assert_eq!(t.entries()[1].at, Duration::from_millis(20));
}

#[test]
fn times_never_decrease_along_the_order() {
    let mut t = Timeline::new();
    let at = Duration::from_millis;
    t.push(Entry::new(at(50), Kind::Pod, Change::Added, pod("a", "10")));
    t.push(Entry::new(at(60), Kind::Pod, Change::Added, pod("c", "30")));
    // Listed late with an old time: placed by resourceVersion, time
    // raised to its predecessor's.
    t.push(Entry::new(
        at(0),
        Kind::Event,
        Change::Added,
        pod("b", "20"),
    ));
    let times: Vec<_> = t
        .entries()
        .iter()
        .map(|e| (e.name.as_str(), e.at))
        .collect();
    assert_eq!(times, [("a", at(50)), ("b", at(50)), ("c", at(60))]);
    // An inferred deletion is appended and later entries stay after it.
    let mut gone = Entry::new(at(70), Kind::Pod, Change::Deleted, pod("a", "10"));
    gone.inferred = true;
    assert_eq!(t.push(gone), 3);
    assert_eq!(
        t.push(Entry::new(at(80), Kind::Pod, Change::Added, pod("d", "25"))),
        4
    );
}

#[test]
fn non_numeric_resource_versions_fall_back_to_arrival() {
    let mut t = Timeline::new();
    t.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("a", "5"),
    ));
    t.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("b", "x"),
    ));
    t.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("c", "1"),
    ));
    let names: Vec<_> = t.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn arrival_ordering_never_reorders() {
    let mut t = Timeline::with_ordering(Ordering::Arrival);
    t.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("a", "5"),
    ));
    t.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("b", "1"),
    ));
    assert_eq!(t.entries()[1].name, "b");
}

#[test]
fn render_line_shows_pod_facts() {
    let o = json!({"metadata": {"name": "web-1", "uid": "u1", "resourceVersion": "42",
        "deletionTimestamp": "2026-01-01T00:00:00Z",
        "labels": {"controller-revision-hash": "web-7c9"}},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
    let e = Entry::new(Duration::from_millis(1234), Kind::Pod, Change::Modified, o);
    assert_eq!(
        Timeline::render_line(&e),
        "+1.234s pod web-1 MODIFIED rv=42 rev=web-7c9 Running ready terminating"
    );
}

#[test]
fn excerpt_marks_the_entry() {
    let mut t = Timeline::new();
    for i in 0..10 {
        t.push(Entry::new(
            Duration::ZERO,
            Kind::Pod,
            Change::Added,
            pod(&format!("p{i}"), &i.to_string()),
        ));
    }
    let ex = t.excerpt_around(5);
    assert_eq!(ex.len(), 6);
    assert!(ex[3].starts_with("> #5 "));
    assert_eq!(t.excerpt_around(0).len(), 3);
    assert_eq!(t.excerpt_around(9).len(), 4);
}

#[test]
fn a_mark_by_resource_version_survives_late_entries() {
    // A window opens when the cluster is at resourceVersion 11 and the
    // recorder has seen two entries; a change from before the window (rv 9)
    // arrives late and is placed first, shifting every position by one.
    let mut t = Timeline::new();
    let add = |t: &mut Timeline, name: &str, rv: &str| {
        t.push(Entry::new(
            Duration::ZERO,
            Kind::Pod,
            Change::Added,
            pod(name, rv),
        ))
    };
    add(&mut t, "a", "10");
    add(&mut t, "b", "11");
    let seq_mark = t.next_seq();
    add(&mut t, "late", "9");
    add(&mut t, "inside", "12");
    let from = t.seq_after_rv(11, seq_mark);
    let inside: Vec<&str> = t.entries()[from as usize..]
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(inside, ["inside"]);
    // The position remembered by itself would count "b" inside the window.
    let by_position: Vec<&str> = t.entries()[seq_mark as usize..]
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(by_position, ["b", "inside"]);
}

#[test]
fn a_cut_drops_what_happened_after_its_resource_version() {
    // The set watch delivered a status (rv 50) whose pod (rv 40) the pod
    // watch has not: cut where every watch had delivered (45), the status
    // is not judged against a history that lacks its pod.
    let mut t = Timeline::new();
    for (name, rv) in [("a", "30"), ("status", "50"), ("b", "44")] {
        t.push(Entry::new(
            Duration::ZERO,
            Kind::Pod,
            Change::Added,
            pod(name, rv),
        ));
    }
    t.cut_after_rv(45);
    let left: Vec<&str> = t.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(left, ["a", "b"]);
    assert_eq!(t.next_seq(), 2);
    // A timeline ordered by arrival has no order to cut.
    let mut arrival = Timeline::with_ordering(Ordering::Arrival);
    arrival.push(Entry::new(
        Duration::ZERO,
        Kind::Pod,
        Change::Added,
        pod("x", "99"),
    ));
    arrival.cut_after_rv(1);
    assert_eq!(arrival.len(), 1);
}
