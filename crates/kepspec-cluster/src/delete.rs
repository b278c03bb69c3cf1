//! Delete semantics: preconditions, graceful deletion of pods, finalizers and
//! the propagation-policy finalizers the garbage collector acts on.

use serde_json::{json, Value};

use super::meta::{self, blocking_finalizers, finalizers, meta_mut, meta_str, set_finalizers};
use super::resources::ResourceInfo;
use super::status::ApiError;
use super::store::{ObjKey, Txn};

/// `propagationPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Propagation {
    /// Dependents are deleted by the garbage collector after the owner is gone.
    Background,
    /// The owner stays (with the `foregroundDeletion` finalizer) until blocking dependents are gone.
    Foreground,
    /// Dependents lose their owner reference (via the `orphan` finalizer).
    Orphan,
}

impl Propagation {
    /// Parses the wire value.
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "Background" => Some(Propagation::Background),
            "Foreground" => Some(Propagation::Foreground),
            "Orphan" => Some(Propagation::Orphan),
            _ => None,
        }
    }
}

/// `DeleteOptions` as the server uses them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeleteOpts {
    /// `gracePeriodSeconds`.
    pub grace_period_seconds: Option<i64>,
    /// `propagationPolicy` (or the deprecated `orphanDependents`).
    pub propagation: Option<Propagation>,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_rv: Option<String>,
    /// `dryRun=All`.
    pub dry_run: bool,
    /// The deprecated `orphanDependents`, as sent: kube-apiserver answers 202
    /// (rather than 200) only for a pending deletion with `orphanDependents=false`.
    pub orphan_dependents: Option<bool>,
}

impl DeleteOpts {
    /// Reads a `DeleteOptions` body (fields absent stay unset).
    pub(crate) fn merge_body(&mut self, body: &Value) -> Result<(), ApiError> {
        if let Some(g) = body.get("gracePeriodSeconds").filter(|v| !v.is_null()) {
            self.grace_period_seconds =
                Some(g.as_i64().ok_or_else(|| {
                    ApiError::bad_request("gracePeriodSeconds must be an integer")
                })?);
        }
        if let Some(p) = body.get("propagationPolicy").and_then(Value::as_str) {
            self.propagation = Some(Propagation::parse(p).ok_or_else(|| bad_policy(p))?);
        }
        if let Some(o) = body.get("orphanDependents").and_then(Value::as_bool) {
            self.orphan_dependents = Some(o);
            if self.propagation.is_none() {
                self.propagation = Some(if o {
                    Propagation::Orphan
                } else {
                    Propagation::Background
                });
            }
        }
        if let Some(u) = body["preconditions"]["uid"].as_str() {
            self.precondition_uid = Some(u.to_string());
        }
        if let Some(r) = body["preconditions"]["resourceVersion"].as_str() {
            self.precondition_rv = Some(r.to_string());
        }
        if body["dryRun"]
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == "All"))
        {
            self.dry_run = true;
        }
        Ok(())
    }
}

/// The 422 for an unknown propagation policy.
pub(crate) fn bad_policy(p: &str) -> ApiError {
    ApiError::invalid(
        "",
        "DeleteOptions",
        "",
        vec![super::status::Cause {
            reason: "FieldValueNotSupported".into(),
            message: format!("Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""),
            field: "propagationPolicy".into(),
        }],
    )
}

/// The result of a delete.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DeleteOutcome {
    /// Removed from storage; the last state.
    Deleted(Value),
    /// Still stored, with a deletionTimestamp (grace period or finalizers pending).
    Pending(Value),
}

/// The grace period a pod delete gets (0 = remove now).
fn pod_grace(obj: &Value, requested: Option<i64>) -> i64 {
    let scheduled = obj["spec"]["nodeName"]
        .as_str()
        .is_some_and(|n| !n.is_empty());
    let phase = obj["status"]["phase"].as_str().unwrap_or("");
    if !scheduled || phase == "Failed" || phase == "Succeeded" {
        return 0;
    }
    let g = requested
        .or_else(|| obj["spec"]["terminationGracePeriodSeconds"].as_i64())
        .unwrap_or(30);
    if g < 0 {
        1
    } else {
        g
    }
}

/// Deletes (or starts deleting) one object.
pub(crate) fn delete_in(
    txn: &mut Txn<'_>,
    info: &ResourceInfo,
    ns: &str,
    name: &str,
    opts: &DeleteOpts,
) -> Result<DeleteOutcome, ApiError> {
    let ns = if info.namespaced { ns } else { "" };
    let key = ObjKey::new(&info.gr(), ns, name);
    let Some(old) = txn.get(&key).cloned() else {
        return Err(ApiError::not_found(&info.group, &info.plural, name));
    };
    let uid = meta_str(&old, "uid").unwrap_or_default().to_string();
    if let Some(want) = &opts.precondition_uid {
        if *want != uid {
            return Err(ApiError::conflict_because(
                &info.group,
                &info.plural,
                name,
                &format!(
                    "Precondition failed: UID in precondition: {want}, UID in object meta: {uid}"
                ),
            ));
        }
    }
    let rv = meta_str(&old, "resourceVersion")
        .unwrap_or_default()
        .to_string();
    if let Some(want) = &opts.precondition_rv {
        if *want != rv {
            return Err(ApiError::conflict_because(&info.group, &info.plural, name, &format!("Precondition failed: ResourceVersion in precondition: {want}, ResourceVersion in object meta: {rv}")));
        }
    }
    let is_pod = info.group.is_empty() && info.plural == "pods";
    let is_ns = info.group.is_empty() && info.plural == "namespaces";
    let grace = if is_pod {
        pod_grace(&old, opts.grace_period_seconds)
    } else {
        0
    };
    let mut new = old.clone();
    let mut fins = finalizers(&new);
    let mut want_fin = |f: &str, on: bool| {
        let has = fins.iter().any(|x| x == f);
        if on && !has {
            fins.push(f.to_string());
        } else if !on && has {
            fins.retain(|x| x != f);
        }
    };
    match opts.propagation {
        Some(Propagation::Foreground) => {
            want_fin("orphan", false);
            want_fin("foregroundDeletion", true);
        }
        Some(Propagation::Orphan) => {
            want_fin("foregroundDeletion", false);
            want_fin("orphan", true);
        }
        Some(Propagation::Background) => {
            want_fin("foregroundDeletion", false);
            want_fin("orphan", false);
        }
        None => {}
    }
    set_finalizers(&mut new, &fins);
    let already = old["metadata"].get("deletionTimestamp").is_some();
    let current_grace = old["metadata"]["deletionGracePeriodSeconds"].as_i64();
    let grace = match (already, current_grace) {
        (true, Some(cur)) if grace > cur => cur,
        _ => grace,
    };
    {
        let old_ts = old["metadata"]["deletionTimestamp"]
            .as_str()
            .and_then(|s| s.parse::<jiff::Timestamp>().ok());
        let m = meta_mut(&mut new);
        match (already, current_grace, old_ts) {
            (false, _, _) => {
                m.insert(
                    "deletionTimestamp".into(),
                    json!(meta::now_plus_rfc3339(grace)),
                );
                m.insert("deletionGracePeriodSeconds".into(), json!(grace));
                // upstream bumps generation when graceful deletion starts
                if is_pod {
                    if let Some(g) = m
                        .get("generation")
                        .and_then(Value::as_i64)
                        .filter(|g| *g > 0)
                    {
                        m.insert("generation".into(), json!(g + 1));
                    }
                }
            }
            (true, Some(cur), Some(ts)) if grace < cur => {
                // the deadline moves earlier by the difference, as upstream's BeforeDelete
                let moved = ts
                    .checked_sub(jiff::SignedDuration::from_secs(cur - grace))
                    .unwrap_or(ts);
                m.insert("deletionTimestamp".into(), json!(meta::rfc3339(moved)));
                m.insert("deletionGracePeriodSeconds".into(), json!(grace));
            }
            _ => {}
        }
    }
    if is_ns {
        if let Some(s) = new.get_mut("status").and_then(Value::as_object_mut) {
            s.insert("phase".into(), json!("Terminating"));
        }
    }
    if opts.dry_run {
        return Ok(if grace == 0 && blocking_finalizers(&new, is_ns) == 0 {
            DeleteOutcome::Deleted(new)
        } else {
            DeleteOutcome::Pending(new)
        });
    }
    if grace == 0 && blocking_finalizers(&new, is_ns) == 0 {
        let gone = txn
            .remove_as(&key, new)
            .ok_or_else(|| ApiError::internal("object vanished during delete"))?;
        return Ok(DeleteOutcome::Deleted(gone));
    }
    if new == old {
        return Ok(DeleteOutcome::Pending(old));
    }
    Ok(DeleteOutcome::Pending(txn.update(&key, new)))
}

#[cfg(test)]
mod tests {
    use super::super::resources::find;
    use super::super::store::Store;
    use super::*;

    fn setup(pod: Value) -> (Store, ResourceInfo) {
        let s = Store::new(100);
        let info = find(&s, "", "v1", "pods").unwrap();
        let k = ObjKey::new(&info.gr(), "default", "p");
        s.transact(|t| t.create(&k, pod));
        (s, info)
    }

    fn del(s: &Store, info: &ResourceInfo, o: DeleteOpts) -> Result<DeleteOutcome, ApiError> {
        s.transact(|t| delete_in(t, info, "default", "p", &o))
    }

    #[test]
    fn scheduled_pod_is_deleted_gracefully() {
        let (s, info) = setup(
            json!({"metadata": {"name": "p", "uid": "u1", "generation": 1}, "spec": {"nodeName": "n", "terminationGracePeriodSeconds": 7}}),
        );
        let out = del(&s, &info, DeleteOpts::default()).unwrap();
        let DeleteOutcome::Pending(p) = out else {
            panic!("{out:?}")
        };
        assert_eq!(p["metadata"]["deletionGracePeriodSeconds"], 7);
        assert_eq!(
            p["metadata"]["generation"], 2,
            "graceful deletion bumps generation"
        );
        // a second delete with a longer grace does not extend it
        let o = DeleteOpts {
            grace_period_seconds: Some(60),
            ..Default::default()
        };
        let DeleteOutcome::Pending(p) = del(&s, &info, o).unwrap() else {
            panic!()
        };
        assert_eq!(p["metadata"]["deletionGracePeriodSeconds"], 7);
        let before: jiff::Timestamp = p["metadata"]["deletionTimestamp"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let o = DeleteOpts {
            grace_period_seconds: Some(3),
            ..Default::default()
        };
        let DeleteOutcome::Pending(p) = del(&s, &info, o).unwrap() else {
            panic!()
        };
        assert_eq!(p["metadata"]["deletionGracePeriodSeconds"], 3);
        let after: jiff::Timestamp = p["metadata"]["deletionTimestamp"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(before.as_second() - after.as_second(), 4);
        assert_eq!(
            p["metadata"]["generation"], 2,
            "shortening does not bump again"
        );
        let o = DeleteOpts {
            grace_period_seconds: Some(0),
            ..Default::default()
        };
        assert!(matches!(
            del(&s, &info, o).unwrap(),
            DeleteOutcome::Deleted(_)
        ));
        assert!(s.get(&info.gr(), "default", "p").is_none());
    }

    #[test]
    fn unscheduled_pod_goes_at_once_unless_finalized() {
        let (s, info) = setup(json!({"metadata": {"name": "p", "uid": "u1"}, "spec": {}}));
        assert!(matches!(
            del(&s, &info, DeleteOpts::default()).unwrap(),
            DeleteOutcome::Deleted(_)
        ));
        let (s, info) =
            setup(json!({"metadata": {"name": "p", "uid": "u1", "finalizers": ["x"]}, "spec": {}}));
        assert!(matches!(
            del(&s, &info, DeleteOpts::default()).unwrap(),
            DeleteOutcome::Pending(_)
        ));
    }

    #[test]
    fn preconditions_and_policies() {
        let (s, info) =
            setup(json!({"metadata": {"name": "p", "uid": "u1", "resourceVersion": "2"}}));
        let o = DeleteOpts {
            precondition_uid: Some("other".into()),
            ..Default::default()
        };
        let e = del(&s, &info, o).unwrap_err();
        assert_eq!(e.code, 409);
        assert!(
            e.message.contains(
                "Precondition failed: UID in precondition: other, UID in object meta: u1"
            ),
            "{}",
            e.message
        );
        let o = DeleteOpts {
            propagation: Some(Propagation::Orphan),
            ..Default::default()
        };
        let DeleteOutcome::Pending(p) = del(&s, &info, o).unwrap() else {
            panic!()
        };
        assert_eq!(p["metadata"]["finalizers"], json!(["orphan"]));
        let mut body = DeleteOpts::default();
        assert_eq!(
            body.merge_body(&json!({"propagationPolicy": "Sideways"}))
                .unwrap_err()
                .code,
            422
        );
    }
}
