//! Discovery documents (`/api`, `/apis`, APIResourceLists, `/version`) and the
//! OpenAPI v3 index kubectl consults before applying.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::resources::ResourceInfo;

/// `/version` for a server of `v` (its patch 0 when not given). The
/// emulation and compatibility fields exist from v1.33
/// (k8s.io/apimachinery/pkg/version/types.go, kubernetes PR #130019).
pub(crate) fn version(v: kepspec_core::Version) -> Value {
    let patch = v.patch.unwrap_or(0);
    let mut out = json!({
        "major": v.major.to_string(),
        "minor": v.minor.to_string(),
        "gitVersion": format!("v{}.{}.{patch}", v.major, v.minor),
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.25.0",
        "compiler": "gc",
        "platform": "linux/amd64"
    });
    if (v.major, v.minor) >= (1, 33) {
        if let Some(m) = out.as_object_mut() {
            m.insert("emulationMajor".into(), json!(v.major.to_string()));
            m.insert("emulationMinor".into(), json!(v.minor.to_string()));
            m.insert("minCompatibilityMajor".into(), json!(v.major.to_string()));
            m.insert(
                "minCompatibilityMinor".into(),
                json!(v.minor.saturating_sub(1).to_string()),
            );
        }
    }
    out
}

/// `/api`.
pub(crate) fn core_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

fn group_versions(all: &[ResourceInfo]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in all.iter().filter(|r| !r.group.is_empty()) {
        let vs = out.entry(r.group.clone()).or_default();
        if !vs.contains(&r.version) {
            vs.push(r.version.clone());
        }
    }
    out
}

fn group_entry(group: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    let preferred = vs.first().cloned().unwrap_or(json!({}));
    json!({"name": group, "versions": vs, "preferredVersion": preferred})
}

/// `/apis`.
pub(crate) fn group_list(all: &[ResourceInfo]) -> Value {
    let groups: Vec<Value> = group_versions(all)
        .iter()
        .map(|(g, vs)| group_entry(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>`, if the group is served.
pub(crate) fn group(all: &[ResourceInfo], group: &str) -> Option<Value> {
    let gvs = group_versions(all);
    let vs = gvs.get(group)?;
    let mut g = group_entry(group, vs);
    if let Some(m) = g.as_object_mut() {
        m.insert("kind".into(), json!("APIGroup"));
        m.insert("apiVersion".into(), json!("v1"));
    }
    Some(g)
}

const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// `/api/v1` or `/apis/<group>/<version>`, if served.
pub(crate) fn resource_list(all: &[ResourceInfo], group: &str, version: &str) -> Option<Value> {
    let mut resources = Vec::new();
    for r in all
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        let mut e = json!({
            "name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
            "kind": r.kind, "verbs": VERBS,
        });
        if r.create_only() {
            e["verbs"] = json!(["create"]);
        }
        if let Some(m) = e.as_object_mut() {
            if !r.short_names.is_empty() {
                m.insert("shortNames".into(), json!(r.short_names));
            }
            if !r.categories.is_empty() {
                m.insert("categories".into(), json!(r.categories));
            }
        }
        resources.push(e);
        if r.binding {
            resources.push(json!({"name": format!("{}/log", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": "Pod", "verbs": ["get"]}));
            resources.push(json!({"name": format!("{}/binding", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": "Binding", "verbs": ["create"]}));
            resources.push(json!({"name": format!("{}/ephemeralcontainers", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": "Pod", "verbs": ["get", "patch", "update"]}));
        }
        if r.plural == "namespaces" && r.group.is_empty() {
            resources.push(json!({"name": "namespaces/finalize", "singularName": "", "namespaced": false, "kind": "Namespace", "verbs": ["update"]}));
        }
        if r.scale.is_some() {
            resources.push(json!({"name": format!("{}/scale", r.plural), "singularName": "", "namespaced": r.namespaced, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}));
        }
        if r.status {
            resources.push(json!({"name": format!("{}/status", r.plural), "singularName": "", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["get", "patch", "update"]}));
        }
    }
    if resources.is_empty() {
        return None;
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// `/openapi/v3`: the index of per-group-version documents.
pub(crate) fn openapi_v3_index(all: &[ResourceInfo]) -> Value {
    let mut paths = serde_json::Map::new();
    for r in all {
        let p = gv_path(&r.group, &r.version);
        let url = format!(
            "/openapi/v3/{p}?hash={}",
            hash_hint(all, &r.group, &r.version)
        );
        paths.insert(p, json!({"serverRelativeURL": url}));
    }
    json!({"paths": paths})
}

fn hash_hint(all: &[ResourceInfo], group: &str, version: &str) -> String {
    let mut h: u64 = 1469598103934665603;
    // What else the document holds: changes with the schemas' source, so
    // a client's cached copy from before is not reused.
    for b in concat!("k8s-openapi ", env!("CARGO_PKG_VERSION"), " schemas").bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(1099511628211);
    }
    for r in all
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        for b in r.plural.bytes().chain(r.kind.bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(1099511628211);
        }
    }
    format!("{h:016X}")
}

/// `/openapi/v3/<gv path>`: operations with their group-version-kind and the
/// `fieldValidation` parameter, so clients know server-side validation
/// exists, and the schemas of the built-in kinds ([`super::openapi`]).
pub(crate) fn openapi_v3_doc(all: &[ResourceInfo], group: &str, version: &str) -> Option<Value> {
    let mut paths = serde_json::Map::new();
    let fv = json!({"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}});
    let dry =
        json!({"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}});
    let fm = json!({"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}});
    let mut any = false;
    for r in all
        .iter()
        .filter(|r| r.group == group && r.version == version)
    {
        any = true;
        let gvk = json!({"group": r.group, "version": r.version, "kind": r.kind});
        let base = if r.namespaced {
            format!(
                "/{}/namespaces/{{namespace}}/{}",
                gv_path(group, version),
                r.plural
            )
        } else {
            format!("/{}/{}", gv_path(group, version), r.plural)
        };
        let op = |action: &str| json!({"x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk, "parameters": [fv, dry, fm], "responses": {"200": {"description": "OK"}}});
        paths.insert(base.clone(), json!({"post": op("post"), "get": op("list")}));
        paths.insert(
            format!("{base}/{{name}}"),
            json!({"get": op("get"), "put": op("put"), "patch": op("patch"), "delete": op("delete")}),
        );
    }
    if !any {
        return None;
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "unversioned"},
        "paths": paths,
        "components": {"schemas": super::openapi::schemas(group, version)}
    }))
}

#[cfg(test)]
mod tests {
    use super::super::resources::builtins;
    use super::*;

    #[test]
    fn apps_v1_lists_statefulset_subresources() {
        let all = builtins();
        let l = resource_list(&all, "apps", "v1").unwrap();
        let names: Vec<&str> = l["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"statefulsets/scale"));
        assert!(names.contains(&"statefulsets/status"));
        assert!(resource_list(&all, "apps", "v9").is_none());
        assert!(group(&all, "apps").is_some());
        assert!(group_list(&all)["groups"].as_array().unwrap().len() >= 4);
    }

    #[test]
    fn openapi_index_points_at_group_documents() {
        let all = builtins();
        let idx = openapi_v3_index(&all);
        assert!(idx["paths"]["apis/apps/v1"]["serverRelativeURL"]
            .as_str()
            .unwrap()
            .starts_with("/openapi/v3/apis/apps/v1?hash="));
        let d = openapi_v3_doc(&all, "apps", "v1").unwrap();
        assert!(
            d["paths"]["/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}"]["patch"]
                .is_object()
        );
    }
}

/// The `apidiscovery.k8s.io` version (`v2` or `v2beta1`) of the aggregated
/// discovery document an `Accept` header asks for first, if any (client-go
/// and kubectl ask for `as=APIGroupDiscoveryList` before the legacy form).
pub(crate) fn wants_aggregated(accept: &str) -> Option<&'static str> {
    super::api::asked_as(
        accept,
        |media| media == "application/json",
        &["APIGroupDiscoveryList"],
        "apidiscovery.k8s.io",
        &["v2", "v2beta1"],
    )
}

fn kind_ref(group: &str, version: &str, kind: &str) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

/// One resource as an `APIResourceDiscovery`, its subresources within.
fn resource_discovery(r: &ResourceInfo) -> Value {
    let verbs: Vec<&str> = if r.create_only() {
        vec!["create"]
    } else {
        VERBS.to_vec()
    };
    let rw = ["get", "patch", "update"];
    let mut subs = Vec::new();
    if r.status {
        subs.push(json!({"subresource": "status", "responseKind": kind_ref(&r.group, &r.version, &r.kind), "verbs": rw}));
    }
    if r.scale.is_some() {
        subs.push(json!({"subresource": "scale", "responseKind": kind_ref("autoscaling", "v1", "Scale"), "verbs": rw}));
    }
    if r.binding {
        subs.push(json!({"subresource": "binding", "responseKind": kind_ref("", "v1", "Binding"), "verbs": ["create"]}));
        subs.push(json!({"subresource": "log", "responseKind": kind_ref("", "v1", "Pod"), "verbs": ["get"]}));
        subs.push(json!({"subresource": "ephemeralcontainers", "responseKind": kind_ref("", "v1", "Pod"), "verbs": rw}));
    }
    if r.plural == "namespaces" && r.group.is_empty() {
        subs.push(json!({"subresource": "finalize", "responseKind": kind_ref("", "v1", "Namespace"), "verbs": ["update"]}));
    }
    let mut e = json!({
        "resource": r.plural,
        "responseKind": kind_ref(&r.group, &r.version, &r.kind),
        "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": r.singular,
        "verbs": verbs,
    });
    if !r.short_names.is_empty() {
        e["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        e["categories"] = json!(r.categories);
    }
    if !subs.is_empty() {
        e["subresources"] = json!(subs);
    }
    e
}

/// The aggregated discovery document of `/api` (`core`) or `/apis`
/// (KEP-3352's `APIGroupDiscoveryList`): every group with every served
/// version and its resources, the preferred version first.
pub(crate) fn aggregated(all: &[ResourceInfo], core: bool, version: &str) -> Value {
    let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<Value>>> = BTreeMap::new();
    for r in all.iter().filter(|r| r.group.is_empty() == core) {
        groups
            .entry(r.group.as_str())
            .or_default()
            .entry(r.version.as_str())
            .or_default()
            .push(resource_discovery(r));
    }
    let order = group_versions(all);
    let items: Vec<Value> = groups
        .into_iter()
        .map(|(group, versions)| {
            let preferred = order.get(group).cloned().unwrap_or_default();
            let mut vs: Vec<(&str, Vec<Value>)> = versions.into_iter().collect();
            vs.sort_by_key(|(v, _)| preferred.iter().position(|p| p == v).unwrap_or(usize::MAX));
            let versions: Vec<Value> = vs
                .into_iter()
                .map(|(v, mut resources)| {
                    resources.sort_by(|a, b| a["resource"].as_str().cmp(&b["resource"].as_str()));
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            let mut meta = json!({"creationTimestamp": null});
            if !group.is_empty() {
                meta["name"] = json!(group);
            }
            json!({"metadata": meta, "versions": versions})
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod aggregated_tests {
    use super::*;

    #[test]
    fn aggregated_discovery_is_asked_for_by_media_type_parameters() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(wants_aggregated(kubectl), Some("v2"));
        assert_eq!(
            wants_aggregated(
                "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
            ),
            Some("v2beta1")
        );
        assert_eq!(wants_aggregated("application/json, */*"), None);
    }

    #[test]
    fn every_group_version_resource_and_subresource_is_listed() {
        let all = super::super::resources::builtins();
        let apis = aggregated(&all, false, "v2");
        assert_eq!(apis["kind"], "APIGroupDiscoveryList");
        let apps = apis["items"]
            .as_array()
            .and_then(|i| i.iter().find(|g| g["metadata"]["name"] == "apps"))
            .expect("apps");
        let sts = apps["versions"][0]["resources"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["resource"] == "statefulsets"))
            .expect("statefulsets");
        assert_eq!(sts["scope"], "Namespaced");
        assert_eq!(sts["responseKind"]["kind"], "StatefulSet");
        let subs: Vec<&str> = sts["subresources"]
            .as_array()
            .map(|s| s.iter().filter_map(|s| s["subresource"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(subs, vec!["status", "scale"]);
        let core = aggregated(&all, true, "v2");
        assert_eq!(core["items"].as_array().map(Vec::len), Some(1));
        assert!(core["items"][0]["metadata"].get("name").is_none());
        let reviews = aggregated(&all, false, "v2")["items"]
            .as_array()
            .and_then(|i| {
                i.iter()
                    .find(|g| g["metadata"]["name"] == "authorization.k8s.io")
                    .cloned()
            })
            .expect("authorization");
        assert_eq!(
            reviews["versions"][0]["resources"][0]["verbs"],
            json!(["create"])
        );
    }
}
