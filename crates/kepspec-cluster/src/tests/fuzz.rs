//! A bounded fuzz of the request decoder and admission: random mutations of
//! valid StatefulSets and Pods (values of the wrong type, numbers out of
//! range, deep nesting, unknown fields, missing or empty required fields,
//! odd strings) go through the same path as a POST body. Nothing may panic,
//! and every object the embedded apiserver accepts must be one
//! kube-apiserver would accept too, as far as this oracle knows it: it
//! decodes into the kind's typed form with no unknown field, and its
//! required fields and label syntax are valid.
//!
//! Seeded, so a failure names the seed and the input that broke it; every
//! such input is kept below as a regression case. `KEPSPEC_FUZZ_CASES`
//! raises the number of cases for a longer run (CI runs the default).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::admission::ApiGates;
use crate::api::decode_object;
use crate::managed::{Manager, Operation};
use crate::objects::{create_in, ApiWrite};
use crate::resources::{builtins, ResourceInfo};
use crate::store::Store;
use crate::typed;

fn info(kind: &str) -> ResourceInfo {
    builtins().into_iter().find(|i| i.kind == kind).unwrap()
}

fn statefulset() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"replicas": 3, "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {"cpu": "10m"}}}]}}}})
}

fn pod() -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "labels": {"app": "p"}},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}})
}

/// Every path to a value in `v` (objects and arrays included).
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                at.push(k.clone());
                paths(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(format!("#{i}"));
                paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'v>(v: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter()
        .try_fold(v, |cur, seg| match seg.strip_prefix('#') {
            Some(i) => cur.get_mut(i.parse::<usize>().ok()?),
            None => cur.get_mut(seg.as_str()),
        })
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(json!("x"), |acc, _| json!({ "k": acc }))
}

fn random_value(rng: &mut StdRng) -> Value {
    match rng.random_range(0..14) {
        0 => json!("three"),
        1 => json!(2_147_483_648_i64),
        2 => json!(-1),
        3 => json!(1.5),
        4 => json!(true),
        5 => Value::Null,
        6 => json!([]),
        7 => json!({}),
        8 => json!(i64::MAX),
        9 => json!("ünïcødé\u{0}\u{202e}"),
        10 => json!("x".repeat(rng.random_range(60..300))),
        11 => nested(rng.random_range(1..120)),
        12 => json!([{"name": "", "image": ""}]),
        _ => json!(42),
    }
}

fn mutate(rng: &mut StdRng, mut obj: Value) -> Value {
    for _ in 0..rng.random_range(1..4) {
        let mut all = Vec::new();
        paths(&obj, &mut Vec::new(), &mut all);
        let path = all[rng.random_range(0..all.len())].clone();
        if path.is_empty() {
            continue;
        }
        match rng.random_range(0..4) {
            // Replace a value.
            0 | 1 => {
                let v = random_value(rng);
                if let Some(slot) = at_mut(&mut obj, &path) {
                    *slot = v;
                }
            }
            // Remove it.
            2 => {
                let (last, parent) = path.split_last().unwrap();
                if let Some(Value::Object(m)) = at_mut(&mut obj, parent) {
                    m.remove(last);
                }
            }
            // Add an unknown field next to it.
            _ => {
                let parent = &path[..path.len() - 1];
                let v = random_value(rng);
                if let Some(Value::Object(m)) = at_mut(&mut obj, parent) {
                    m.insert(format!("unknownField{}", rng.random_range(0..9)), v);
                }
            }
        }
    }
    obj
}

fn label_ok(k: &str, v: &str) -> bool {
    let name = |s: &str| {
        !s.is_empty()
            && s.len() <= 63
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && s.starts_with(|c: char| c.is_ascii_alphanumeric())
            && s.ends_with(|c: char| c.is_ascii_alphanumeric())
    };
    let key_ok = match k.split_once('/') {
        Some((prefix, n)) => !prefix.is_empty() && prefix.len() <= 253 && name(n),
        None => name(k),
    };
    key_ok && (v.is_empty() || name(v))
}

/// What kube-apiserver would refuse in an object the embedded one stored.
fn refused_upstream(info: &ResourceInfo, stored: &Value) -> Option<String> {
    match typed::round_trip(info, stored) {
        Some(Ok(t)) => {
            let unknown = typed::unknown_paths(stored, &t);
            if !unknown.is_empty() {
                return Some(format!("stored unknown fields {unknown:?}"));
            }
        }
        Some(Err(e)) => {
            return Some(format!(
                "stored an object that does not decode: {}",
                e.message
            ))
        }
        None => {}
    }
    for (k, v) in stored["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if !v.as_str().is_some_and(|v| label_ok(k, v)) {
            return Some(format!("stored an invalid label {k}={v}"));
        }
    }
    let containers = if info.kind == "Pod" {
        &stored["spec"]["containers"]
    } else {
        &stored["spec"]["template"]["spec"]["containers"]
    };
    match containers.as_array() {
        Some(cs) if !cs.is_empty() => {
            for c in cs {
                if c["name"].as_str().is_none_or(str::is_empty) {
                    return Some("stored a container without a name".into());
                }
                if c["image"].as_str().is_none_or(|i| i.trim().is_empty()) {
                    return Some("stored a container without an image".into());
                }
            }
        }
        _ => return Some("stored an object without containers".into()),
    }
    if info.kind == "StatefulSet" {
        if stored["spec"]["replicas"].as_i64().is_some_and(|r| r < 0) {
            return Some("stored negative replicas".into());
        }
        if stored["spec"]["selector"]["matchLabels"]
            .as_object()
            .is_none_or(|m| m.is_empty())
            && stored["spec"]["selector"]["matchExpressions"].is_null()
        {
            return Some("stored an empty selector".into());
        }
    }
    None
}

/// A write as a client makes it.
fn api_write(gates: &ApiGates) -> ApiWrite<'_> {
    ApiWrite {
        gates,
        manager: Manager {
            name: "fuzz".into(),
            operation: Operation::Update,
            api_version: "v1".into(),
            subresource: String::new(),
        },
    }
}

/// One case: decode the body as a POST would, admit it; Err names what
/// kube-apiserver would have refused that was stored.
fn case(store: &Store, kind: &str, obj: &Value) -> Result<(), String> {
    let info = info(kind);
    let body = obj.to_string();
    let Ok(decoded) = decode_object("application/json", body.as_bytes()) else {
        return Ok(());
    };
    let gates = ApiGates::default();
    let by = api_write(&gates);
    let stored = store.transact(|t| create_in(t, &info, "default", decoded, Some(&by), true));
    match stored {
        Ok(stored) => match refused_upstream(&info, &stored) {
            Some(why) => Err(format!("{why}\ninput: {body}")),
            None => Ok(()),
        },
        Err(e) if e.code >= 500 => {
            Err(format!("answered {}: {}\ninput: {body}", e.code, e.message))
        }
        Err(_) => Ok(()),
    }
}

fn store() -> Store {
    let store = Store::new(1000);
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}});
    store
        .transact(|t| create_in(t, &info("Namespace"), "", ns, None, false))
        .unwrap();
    store
}

#[test]
fn mutated_objects_never_panic_and_nothing_upstream_refuses_is_stored() {
    let cases: usize = std::env::var("KEPSPEC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed: u64 = std::env::var("KEPSPEC_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6b65_7073);
    let store = store();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut failures = Vec::new();
    for i in 0..cases {
        let (kind, base) = if i % 2 == 0 {
            ("StatefulSet", statefulset())
        } else {
            ("Pod", pod())
        };
        let obj = mutate(&mut rng, base);
        if let Err(e) = case(&store, kind, &obj) {
            failures.push(format!("case {i} (seed {seed}): {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases stored what kube-apiserver refuses; first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn the_valid_bases_are_accepted() {
    let store = store();
    for (kind, obj) in [("StatefulSet", statefulset()), ("Pod", pod())] {
        let info = info(kind);
        let stored = store
            .transact(|t| {
                let gates = ApiGates::default();
                create_in(t, &info, "default", obj, Some(&api_write(&gates)), true)
            })
            .unwrap();
        assert_eq!(refused_upstream(&info, &stored), None);
    }
}

#[test]
fn random_bodies_never_panic_the_decoder() {
    let mut rng = StdRng::seed_from_u64(0x6465_636f);
    let pieces: [&[u8]; 12] = [
        b"{", b"}", b"[", b"]", b"\"", b":", b",", b"- ", b"\n  ", b"&a ", b"*a", b"\xff",
    ];
    for _ in 0..5000 {
        let mut body = Vec::new();
        for _ in 0..rng.random_range(0..200) {
            body.extend_from_slice(pieces[rng.random_range(0..pieces.len())]);
        }
        for ct in ["application/json", "application/yaml", ""] {
            let _ = decode_object(ct, &body);
        }
    }
}
