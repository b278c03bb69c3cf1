//! The RBAC objects a fresh cluster holds, and the ClusterRole aggregation
//! that fills `admin`, `edit` and `view`.
//!
//! kube-apiserver's `rbac/bootstrap-roles` post-start hook
//! (pkg/registry/rbac/rest/storage_rbac.go) creates the roles and bindings
//! of `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`, each
//! labelled `kubernetes.io/bootstrapping: rbac-defaults` and annotated
//! `rbac.authorization.kubernetes.io/autoupdate: "true"`; `admin`, `edit`
//! and `view` are created with an `aggregationRule` and no rules, which
//! kube-controller-manager's clusterrole-aggregation controller
//! (pkg/controller/clusterroleaggregation) fills: for each selector, the
//! rules of every other ClusterRole it matches, in name order, each rule
//! once.
//!
//! Served here: `cluster-admin`, the three aggregated roles and their three
//! `system:aggregate-to-*` sources, `system:discovery`,
//! `system:basic-user`, `system:public-info-viewer`, and the bindings of
//! the four that unauthenticated and authenticated users and
//! `system:masters` hold, with the rules as bootstrappolicy's testdata
//! (cluster-roles.yaml, v1.35 line) states them. The other bootstrap roles
//! (`system:node`, `system:kube-scheduler`, the certificate approvers, the
//! `system:controller:*` roles …) are not served; docs/src/embedded-cluster.md
//! lists the difference. No authorizer reads any of them: every request with
//! the cluster's token may do everything.

use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// The label every bootstrap RBAC object carries.
pub(crate) const BOOTSTRAPPING: (&str, &str) = ("kubernetes.io/bootstrapping", "rbac-defaults");
/// The annotation every bootstrap RBAC object carries.
pub(crate) const AUTOUPDATE: (&str, &str) = ("rbac.authorization.kubernetes.io/autoupdate", "true");

const AGGREGATE_TO_ADMIN: &str = "rbac.authorization.k8s.io/aggregate-to-admin";
const AGGREGATE_TO_EDIT: &str = "rbac.authorization.k8s.io/aggregate-to-edit";
const AGGREGATE_TO_VIEW: &str = "rbac.authorization.k8s.io/aggregate-to-view";

fn metadata(name: &str, extra_label: Option<&str>) -> Value {
    let mut labels = Map::new();
    labels.insert(BOOTSTRAPPING.0.into(), json!(BOOTSTRAPPING.1));
    if let Some(l) = extra_label {
        labels.insert(l.into(), json!("true"));
    }
    json!({"name": name, "labels": labels, "annotations": {AUTOUPDATE.0: AUTOUPDATE.1}})
}

fn role(name: &str, extra_label: Option<&str>, rules: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": metadata(name, extra_label), "rules": rules})
}

fn aggregated(name: &str, extra_label: Option<&str>, selects: &str) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": metadata(name, extra_label),
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {selects: "true"}}]}})
}

fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> Value {
    json!({"apiGroups": groups, "resources": resources, "verbs": verbs})
}

const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];
const READ: &[&str] = &["get", "list", "watch"];
/// Reads and writes, as bootstrappolicy's testdata lists them.
const EVERY_VERB: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn aggregate_to_edit_rules() -> Value {
    json!([
        rule(
            &[""],
            &[
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy",
                "secrets",
                "services/proxy"
            ],
            READ
        ),
        rule(&[""], &["serviceaccounts"], &["impersonate"]),
        rule(
            &[""],
            &[
                "pods",
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy"
            ],
            WRITE
        ),
        rule(&[""], &["pods/eviction"], &["create"]),
        rule(
            &[""],
            &[
                "configmaps",
                "persistentvolumeclaims",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "secrets",
                "serviceaccounts",
                "services",
                "services/proxy"
            ],
            WRITE
        ),
        rule(&[""], &["serviceaccounts/token"], &["create"]),
        rule(&["", "events.k8s.io"], &["events"], WRITE),
        rule(
            &["apps"],
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "replicasets",
                "replicasets/scale",
                "statefulsets",
                "statefulsets/scale"
            ],
            WRITE
        ),
        rule(&["autoscaling"], &["horizontalpodautoscalers"], WRITE),
        rule(&["batch"], &["cronjobs", "jobs"], WRITE),
        rule(
            &["extensions"],
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "ingresses",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicationcontrollers/scale"
            ],
            WRITE
        ),
        rule(&["policy"], &["poddisruptionbudgets"], WRITE),
        rule(
            &["networking.k8s.io"],
            &["ingresses", "networkpolicies"],
            WRITE
        ),
        rule(&["coordination.k8s.io"], &["leases"], EVERY_VERB),
        rule(
            &["resource.k8s.io"],
            &["resourceclaims", "resourceclaimtemplates"],
            WRITE
        ),
    ])
}

fn aggregate_to_view_rules() -> Value {
    json!([
        rule(
            &[""],
            &[
                "configmaps",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status"
            ],
            READ
        ),
        rule(
            &[""],
            &[
                "bindings",
                "limitranges",
                "namespaces/status",
                "pods/log",
                "pods/status",
                "replicationcontrollers/status",
                "resourcequotas",
                "resourcequotas/status"
            ],
            READ
        ),
        rule(&[""], &["namespaces"], READ),
        rule(&["", "events.k8s.io"], &["events"], READ),
        rule(&["discovery.k8s.io"], &["endpointslices"], READ),
        rule(
            &["apps"],
            &[
                "controllerrevisions",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status"
            ],
            READ
        ),
        rule(
            &["autoscaling"],
            &[
                "horizontalpodautoscalers",
                "horizontalpodautoscalers/status"
            ],
            READ
        ),
        rule(
            &["batch"],
            &["cronjobs", "cronjobs/status", "jobs", "jobs/status"],
            READ
        ),
        rule(
            &["extensions"],
            &[
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "ingresses",
                "ingresses/status",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "replicationcontrollers/scale"
            ],
            READ
        ),
        rule(
            &["policy"],
            &["poddisruptionbudgets", "poddisruptionbudgets/status"],
            READ
        ),
        rule(
            &["networking.k8s.io"],
            &["ingresses", "ingresses/status", "networkpolicies"],
            READ
        ),
        rule(
            &["resource.k8s.io"],
            &[
                "resourceclaims",
                "resourceclaims/status",
                "resourceclaimtemplates"
            ],
            READ
        ),
    ])
}

/// The bootstrap ClusterRoles served, the aggregated ones (`admin`, `edit`,
/// `view`) holding what [`aggregate`] gathers into them from the others, as
/// kube-controller-manager's aggregation controller leaves them on a fresh
/// cluster. Worked out once per process.
pub(crate) fn cluster_roles() -> Vec<Value> {
    static ROLES: OnceLock<Vec<Value>> = OnceLock::new();
    ROLES
        .get_or_init(|| settled(declared_cluster_roles()))
        .clone()
}

/// `roles` after aggregation has run until it changes nothing (an
/// aggregated role can itself be gathered: `edit` into `admin`).
fn settled(mut roles: Vec<Value>) -> Vec<Value> {
    for _ in 0..10 {
        let changes = aggregate(&roles.iter().collect::<Vec<_>>());
        if changes.is_empty() {
            break;
        }
        for (role, rules) in changes {
            if let Some(r) = roles.iter_mut().find(|r| name(r) == role) {
                r["rules"] = rules;
            }
        }
    }
    roles
}

/// The bootstrap ClusterRoles as declared (aggregated ones without rules
/// yet).
fn declared_cluster_roles() -> Vec<Value> {
    let non_resource = |urls: &[&str]| json!({"nonResourceURLs": urls, "verbs": ["get"]});
    vec![
        aggregated("admin", None, AGGREGATE_TO_ADMIN),
        role(
            "cluster-admin",
            None,
            json!([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
        ),
        aggregated("edit", Some(AGGREGATE_TO_ADMIN), AGGREGATE_TO_EDIT),
        role(
            "system:aggregate-to-admin",
            Some(AGGREGATE_TO_ADMIN),
            json!([
                rule(
                    &["authorization.k8s.io"],
                    &["localsubjectaccessreviews"],
                    &["create"]
                ),
                rule(
                    &["rbac.authorization.k8s.io"],
                    &["rolebindings", "roles"],
                    EVERY_VERB
                ),
            ]),
        ),
        role(
            "system:aggregate-to-edit",
            Some(AGGREGATE_TO_EDIT),
            aggregate_to_edit_rules(),
        ),
        role(
            "system:aggregate-to-view",
            Some(AGGREGATE_TO_VIEW),
            aggregate_to_view_rules(),
        ),
        role(
            "system:basic-user",
            None,
            json!([
                rule(
                    &["authorization.k8s.io"],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                    &["create"]
                ),
                rule(
                    &["authentication.k8s.io"],
                    &["selfsubjectreviews"],
                    &["create"]
                ),
            ]),
        ),
        role(
            "system:discovery",
            None,
            json!([non_resource(&[
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/"
            ])]),
        ),
        role(
            "system:public-info-viewer",
            None,
            json!([non_resource(&[
                "/healthz",
                "/livez",
                "/readyz",
                "/version",
                "/version/"
            ])]),
        ),
        aggregated("view", Some(AGGREGATE_TO_EDIT), AGGREGATE_TO_VIEW),
    ]
}

fn group(name: &str) -> Value {
    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": name})
}

/// The bootstrap ClusterRoleBindings of the served roles (each named as its
/// role).
pub(crate) fn cluster_role_bindings() -> Vec<Value> {
    let binding = |name: &str, subjects: Vec<Value>| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": metadata(name, None),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": subjects})
    };
    vec![
        binding("cluster-admin", vec![group("system:masters")]),
        binding("system:basic-user", vec![group("system:authenticated")]),
        binding("system:discovery", vec![group("system:authenticated")]),
        binding(
            "system:public-info-viewer",
            vec![
                group("system:authenticated"),
                group("system:unauthenticated"),
            ],
        ),
    ]
}

/// What the clusterrole-aggregation controller writes (pure): for each
/// ClusterRole with an `aggregationRule`, the rules it must hold when they
/// differ from its own, as `(name, rules)`. Run until it returns nothing:
/// an aggregated role may feed another (`view` feeds `edit`, `edit` feeds
/// `admin`).
pub(crate) fn aggregate(roles: &[&Value]) -> Vec<(String, Value)> {
    let mut sorted: Vec<&Value> = roles.to_vec();
    sorted.sort_by(|a, b| name(a).cmp(name(b)));
    let mut out = Vec::new();
    for agg in &sorted {
        let Some(selectors) = agg["aggregationRule"]["clusterRoleSelectors"].as_array() else {
            continue;
        };
        let mut rules: Vec<Value> = Vec::new();
        for sel in selectors.iter().filter_map(Value::as_object) {
            for source in &sorted {
                if name(source) == name(agg)
                    || !crate::admission::selector::matches(
                        sel,
                        source["metadata"]["labels"].as_object(),
                    )
                {
                    continue;
                }
                for r in source["rules"].as_array().into_iter().flatten() {
                    if !rules.contains(r) {
                        rules.push(r.clone());
                    }
                }
            }
        }
        let have = agg["rules"].as_array().cloned().unwrap_or_default();
        // An aggregation that finds nothing leaves the role's own rules.
        if !rules.is_empty() && rules != have {
            out.push((name(agg).to_string(), Value::Array(rules)));
        }
    }
    out
}

fn name(v: &Value) -> &str {
    v["metadata"]["name"].as_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules_of<'a>(roles: &'a [Value], n: &str) -> &'a Vec<Value> {
        roles
            .iter()
            .find(|r| name(r) == n)
            .and_then(|r| r["rules"].as_array())
            .unwrap_or_else(|| panic!("{n} has no rules"))
    }

    #[test]
    fn view_edit_and_admin_aggregate_in_a_chain() {
        let roles = cluster_roles();
        // Served already settled: one more round changes nothing.
        assert!(aggregate(&roles.iter().collect::<Vec<_>>()).is_empty());
        let view = rules_of(&roles, "view");
        let edit = rules_of(&roles, "edit");
        let admin = rules_of(&roles, "admin");
        assert_eq!(view, aggregate_to_view_rules().as_array().unwrap());
        // edit: system:aggregate-to-edit's rules, then view's (name order).
        assert_eq!(edit.len(), 15 + 12);
        assert_eq!(
            &edit[..15],
            aggregate_to_edit_rules().as_array().unwrap().as_slice()
        );
        assert_eq!(&edit[15..], view.as_slice());
        // admin: edit's rules, then system:aggregate-to-admin's.
        assert_eq!(admin.len(), 27 + 2);
        assert_eq!(&admin[..27], edit.as_slice());
        // A role a user adds with the view label joins view, edit and admin.
        let mut more = roles.clone();
        more.push(role(
            "widgets-view",
            Some(AGGREGATE_TO_VIEW),
            json!([rule(&["example.com"], &["widgets"], READ)]),
        ));
        let more = settled(more);
        for n in ["view", "edit", "admin"] {
            assert!(
                rules_of(&more, n)
                    .iter()
                    .any(|r| r["resources"] == json!(["widgets"])),
                "{n}"
            );
        }
    }

    #[test]
    fn every_object_carries_the_bootstrap_label_and_annotation() {
        for o in cluster_roles().iter().chain(&cluster_role_bindings()) {
            assert_eq!(o["metadata"]["labels"][BOOTSTRAPPING.0], BOOTSTRAPPING.1);
            assert_eq!(o["metadata"]["annotations"][AUTOUPDATE.0], AUTOUPDATE.1);
        }
        let bindings = cluster_role_bindings();
        let roles = cluster_roles();
        for b in bindings
            .iter()
            .map(|b| b["roleRef"]["name"].as_str().unwrap_or_default())
        {
            assert!(
                roles.iter().any(|r| name(r) == b),
                "{b} is bound but not served"
            );
        }
    }
}
