//! Server-side printing (`meta.k8s.io/v1` Table) for `kubectl get`, with the
//! columns upstream prints for the built-in types kepspec uses.

use http::HeaderMap;
use serde_json::{json, Value};

use super::super::resources::ResourceInfo;
use super::table_custom::custom_table;
use super::table_pod::pod_cells;

/// Whether the client asked for a Table (`Accept: application/json;as=Table;...`).
pub(super) fn wants_table(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("as=Table"))
}

/// kubectl's `duration.HumanDuration`.
pub(super) fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".to_string();
    }
    let s = secs.max(0);
    let (m, h, d) = (s / 60, s / 3600, s / 86400);
    let y = d / 365;
    if s < 120 {
        format!("{s}s")
    } else if m < 10 {
        if s % 60 == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        }
    } else if h < 3 {
        format!("{m}m")
    } else if h < 8 {
        if m % 60 == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 192 {
        if h % 24 == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{}h", h % 24)
        }
    } else if y < 2 {
        format!("{d}d")
    } else if y < 8 {
        format!("{y}y{}d", d % 365)
    } else {
        format!("{y}y")
    }
}

pub(super) fn age(ts: &Value, now: jiff::Timestamp) -> String {
    match ts.as_str().and_then(|t| t.parse::<jiff::Timestamp>().ok()) {
        Some(t) => human_duration(now.as_second() - t.as_second()),
        None => "<unknown>".to_string(),
    }
}

pub(super) fn s(v: &Value) -> String {
    match v {
        Value::String(x) => x.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(super) fn or_none(x: String) -> String {
    if x.is_empty() {
        "<none>".to_string()
    } else {
        x
    }
}

fn containers_and_images(template_spec: &Value) -> (String, String) {
    let cs = template_spec["containers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<String> = cs.iter().map(|c| s(&c["name"])).collect();
    let images: Vec<String> = cs.iter().map(|c| s(&c["image"])).collect();
    (names.join(","), images.join(","))
}

fn service_ports(svc: &Value) -> String {
    let ports: Vec<String> = svc["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!(
                "{}/{}",
                s(&p["port"]),
                p["protocol"].as_str().unwrap_or("TCP")
            )
        })
        .collect();
    if ports.is_empty() {
        "<none>".into()
    } else {
        ports.join(",")
    }
}

/// The ENDPOINTS cell of an Endpoints row, as upstream's `formatEndpoints`
/// (pkg/printers/internalversion/printers.go): `ip:port` for each port and
/// address of each subset (the bare IP for a subset without ports), at
/// most three, then ` + N more...`; `<none>` when empty.
fn endpoints_cell(o: &Value) -> String {
    const MAX: usize = 3;
    let mut list: Vec<String> = Vec::new();
    let mut count = 0;
    let mut more = false;
    for ss in o["subsets"].as_array().into_iter().flatten() {
        let addresses: Vec<&str> = ss["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["ip"].as_str())
            .collect();
        let ports: Vec<i64> = ss["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["port"].as_i64())
            .collect();
        if ports.is_empty() {
            count += addresses.len();
            for ip in &addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                list.push((*ip).to_string());
            }
            continue;
        }
        for port in ports {
            count += addresses.len();
            for ip in &addresses {
                if list.len() == MAX {
                    more = true;
                    break;
                }
                // net.JoinHostPort: an IPv6 address goes in brackets.
                list.push(if ip.contains(':') {
                    format!("[{ip}]:{port}")
                } else {
                    format!("{ip}:{port}")
                });
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - MAX)
    } else if joined.is_empty() {
        "<none>".into()
    } else {
        joined
    }
}

/// `(column name, type)` pairs and the row cells for one object.
fn layout(
    info: &ResourceInfo,
    o: &Value,
    now: jiff::Timestamp,
) -> (Vec<(&'static str, &'static str, i32)>, Vec<Value>) {
    let name = json!(o["metadata"]["name"]);
    let created = json!(age(&o["metadata"]["creationTimestamp"], now));
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "statefulsets") => {
            let (containers, images) = containers_and_images(&o["spec"]["template"]["spec"]);
            (
                vec![
                    ("Name", "string", 0),
                    ("Ready", "string", 0),
                    ("Age", "string", 0),
                    ("Containers", "string", 1),
                    ("Images", "string", 1),
                ],
                vec![
                    name,
                    json!(format!(
                        "{}/{}",
                        o["status"]["readyReplicas"].as_i64().unwrap_or(0),
                        o["spec"]["replicas"].as_i64().unwrap_or(1)
                    )),
                    created,
                    json!(containers),
                    json!(images),
                ],
            )
        }
        ("", "pods") => (
            vec![
                ("Name", "string", 0),
                ("Ready", "string", 0),
                ("Status", "string", 0),
                ("Restarts", "string", 0),
                ("Age", "string", 0),
                ("IP", "string", 1),
                ("Node", "string", 1),
                ("Nominated Node", "string", 1),
                ("Readiness Gates", "string", 1),
            ],
            pod_cells(o, now),
        ),
        ("", "namespaces") => (
            vec![
                ("Name", "string", 0),
                ("Status", "string", 0),
                ("Age", "string", 0),
            ],
            vec![name, json!(s(&o["status"]["phase"])), created],
        ),
        ("", "persistentvolumeclaims") => {
            let modes: Vec<String> = o["spec"]["accessModes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| match m.as_str() {
                    Some("ReadWriteOnce") => "RWO".to_string(),
                    Some("ReadOnlyMany") => "ROX".to_string(),
                    Some("ReadWriteMany") => "RWX".to_string(),
                    Some("ReadWriteOncePod") => "RWOP".to_string(),
                    _ => s(m),
                })
                .collect();
            (
                vec![
                    ("Name", "string", 0),
                    ("Status", "string", 0),
                    ("Volume", "string", 0),
                    ("Capacity", "string", 0),
                    ("Access Modes", "string", 0),
                    ("StorageClass", "string", 0),
                    ("VolumeAttributesClass", "string", 0),
                    ("Age", "string", 0),
                ],
                vec![
                    name,
                    json!(s(&o["status"]["phase"])),
                    json!(s(&o["spec"]["volumeName"])),
                    json!(s(&o["status"]["capacity"]["storage"])),
                    json!(modes.join(",")),
                    json!(s(&o["spec"]["storageClassName"])),
                    json!("<unset>"),
                    created,
                ],
            )
        }
        ("", "services") => (
            vec![
                ("Name", "string", 0),
                ("Type", "string", 0),
                ("Cluster-IP", "string", 0),
                ("External-IP", "string", 0),
                ("Port(s)", "string", 0),
                ("Age", "string", 0),
            ],
            vec![
                name,
                json!(s(&o["spec"]["type"])),
                json!(s(&o["spec"]["clusterIP"])),
                json!("<none>"),
                json!(service_ports(o)),
                created,
            ],
        ),
        ("", "endpoints") => (
            vec![
                ("Name", "string", 0),
                ("Endpoints", "string", 0),
                ("Age", "string", 0),
            ],
            vec![name, json!(endpoints_cell(o)), created],
        ),
        ("", "nodes") => {
            // printNode (pkg/printers/internalversion/printers.go): the
            // Ready condition, "SchedulingDisabled" for a cordoned node,
            // and the roles its node-role.kubernetes.io/ labels name.
            let ready = o["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["type"] == "Ready");
            let mut status = vec![match ready {
                Some(c) if c["status"] == "True" => "Ready",
                Some(_) => "NotReady",
                None => "Unknown",
            }];
            if o["spec"]["unschedulable"] == true {
                status.push("SchedulingDisabled");
            }
            let mut roles: Vec<&str> = o["metadata"]["labels"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
                    Some(role) if !role.is_empty() => Some(role),
                    _ if k == "kubernetes.io/role" => v.as_str().filter(|r| !r.is_empty()),
                    _ => None,
                })
                .collect();
            roles.sort_unstable();
            roles.dedup();
            let roles = if roles.is_empty() {
                "<none>".to_string()
            } else {
                roles.join(",")
            };
            // The wide columns: the first address of each type, "<none>"
            // without one; the node info, "<unknown>" where empty.
            let address = |kind: &str| {
                o["status"]["addresses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|a| a["type"] == kind)
                    .and_then(|a| a["address"].as_str())
                    .unwrap_or("<none>")
                    .to_string()
            };
            let info = |key: &str| {
                o["status"]["nodeInfo"][key]
                    .as_str()
                    .filter(|v| !v.is_empty())
                    .unwrap_or("<unknown>")
                    .to_string()
            };
            (
                vec![
                    ("Name", "string", 0),
                    ("Status", "string", 0),
                    ("Roles", "string", 0),
                    ("Age", "string", 0),
                    ("Version", "string", 0),
                    ("Internal-IP", "string", 1),
                    ("External-IP", "string", 1),
                    ("OS-Image", "string", 1),
                    ("Kernel-Version", "string", 1),
                    ("Container-Runtime", "string", 1),
                ],
                vec![
                    name,
                    json!(status.join(",")),
                    json!(roles),
                    created,
                    json!(s(&o["status"]["nodeInfo"]["kubeletVersion"])),
                    json!(address("InternalIP")),
                    json!(address("ExternalIP")),
                    json!(info("osImage")),
                    json!(info("kernelVersion")),
                    json!(info("containerRuntimeVersion")),
                ],
            )
        }
        ("apps", "controllerrevisions") => {
            let ctl = o["metadata"]["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["controller"] == true)
                .map(|r| {
                    format!(
                        "{}.{}/{}",
                        s(&r["kind"]).to_lowercase(),
                        s(&r["apiVersion"]).split('/').next().unwrap_or(""),
                        s(&r["name"])
                    )
                })
                .unwrap_or_else(|| "<none>".into());
            (
                vec![
                    ("Name", "string", 0),
                    ("Controller", "string", 0),
                    ("Revision", "integer", 0),
                    ("Age", "string", 0),
                ],
                vec![name, json!(ctl), json!(o["revision"]), created],
            )
        }
        ("", "events") => {
            let obj = format!(
                "{}/{}",
                s(&o["involvedObject"]["kind"]).to_lowercase(),
                s(&o["involvedObject"]["name"])
            );
            let seen = if o["lastTimestamp"].is_string() {
                &o["lastTimestamp"]
            } else {
                &o["metadata"]["creationTimestamp"]
            };
            (
                vec![
                    ("Last Seen", "string", 0),
                    ("Type", "string", 0),
                    ("Reason", "string", 0),
                    ("Object", "string", 0),
                    ("Message", "string", 0),
                ],
                vec![
                    json!(age(seen, now)),
                    json!(s(&o["type"])),
                    json!(s(&o["reason"])),
                    json!(obj),
                    json!(s(&o["message"])),
                ],
            )
        }
        _ => (
            vec![("Name", "string", 0), ("Age", "string", 0)],
            vec![name, created],
        ),
    }
}

pub(super) fn row_object(info: &ResourceInfo, o: &Value, include: &str) -> Value {
    match include {
        "None" => Value::Null,
        "Object" => {
            let mut full = o.clone();
            if let Some(m) = full.as_object_mut() {
                m.insert("apiVersion".into(), json!(info.api_version()));
                m.insert("kind".into(), json!(info.kind));
            }
            full
        }
        _ => {
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]})
        }
    }
}

/// A Table of `objects`; `list_meta` becomes the table's metadata.
pub(super) fn table(
    info: &ResourceInfo,
    objects: &[Value],
    list_meta: Value,
    include: &str,
) -> Value {
    if !info.printer_columns.is_empty() {
        return custom_table(info, objects, list_meta, include);
    }
    let now = jiff::Timestamp::now();
    let empty = json!({"metadata": {}});
    let (cols, _) = layout(info, objects.first().unwrap_or(&empty), now);
    let defs: Vec<Value> = cols
        .iter()
        .map(|(n, t, prio)| {
            let format = if *n == "Name" { "name" } else { "" };
            json!({"name": n, "type": t, "format": format, "description": "", "priority": prio})
        })
        .collect();
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| json!({"cells": layout(info, o, now).1, "object": row_object(info, o, include)}))
        .collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta, "columnDefinitions": defs, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::super::super::resources::builtins;
    use super::*;

    #[test]
    fn endpoints_print_as_upstream_formats_them() {
        let e = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}],
            "ports": [{"port": 80}, {"port": 443}]}]});
        assert_eq!(
            endpoints_cell(&e),
            "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more..."
        );
        let bare = json!({"subsets": [{"addresses": [{"ip": "fd00::1"}]}]});
        assert_eq!(endpoints_cell(&bare), "fd00::1");
        let v6 =
            json!({"subsets": [{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 6443}]}]});
        assert_eq!(endpoints_cell(&v6), "[fd00::1]:6443");
        assert_eq!(endpoints_cell(&json!({})), "<none>");
    }

    #[test]
    fn durations_like_kubectl() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(130), "2m10s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(4 * 3600 + 60), "4h1m");
        assert_eq!(human_duration(3 * 86400), "3d");
    }

    #[test]
    fn node_rows_show_cordoned_nodes_and_roles_as_kubectl_prints_them() {
        let info = builtins()
            .into_iter()
            .find(|r| r.plural == "nodes")
            .unwrap();
        let n = json!({"metadata": {"name": "kind-worker", "labels": {"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/infra": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.37.0"}}});
        let cells = &table(&info, std::slice::from_ref(&n), json!({}), "None")["rows"][0]["cells"];
        assert_eq!(cells[1], "Ready,SchedulingDisabled");
        assert_eq!(cells[2], "control-plane,infra");
        let bare = json!({"metadata": {"name": "n"}, "status": {}});
        let cells = &table(&info, &[bare], json!({}), "None")["rows"][0]["cells"];
        assert_eq!(
            (cells[1].clone(), cells[2].clone()),
            (json!("Unknown"), json!("<none>"))
        );
        // The wide columns, as `kubectl get nodes -o wide` shows them.
        assert_eq!(
            cells.as_array().unwrap()[5..],
            [
                json!("<none>"),
                json!("<none>"),
                json!("<unknown>"),
                json!("<unknown>"),
                json!("<unknown>")
            ]
        );
        let simulated = crate::nodes::node::node_status(
            &crate::nodes::NodeSpec::kind_worker("kind-worker"),
            1,
            "2026-01-01T00:00:00Z",
        );
        let mut n = json!({"metadata": {"name": "kind-worker"}});
        n["status"] = simulated["status"].clone();
        let cells = &table(&info, &[n], json!({}), "None")["rows"][0]["cells"];
        assert_eq!(cells[6], "<none>");
        assert_eq!(cells[7], "Debian GNU/Linux 12 (bookworm)");
        assert_eq!(cells[9], "containerd://2.1.0");
        assert!(
            cells[5].as_str().is_some_and(|ip| ip.contains('.')),
            "{cells}"
        );
    }

    #[test]
    fn pod_rows_show_waiting_reasons_and_terminating() {
        let info = builtins().into_iter().find(|r| r.plural == "pods").unwrap();
        let p = json!({"metadata": {"name": "web-0", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Pending", "containerStatuses": [{"ready": false, "restartCount": 0, "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}});
        let t = table(&info, std::slice::from_ref(&p), json!({}), "Metadata");
        assert_eq!(t["rows"][0]["cells"][1], "0/1");
        assert_eq!(t["rows"][0]["cells"][2], "ImagePullBackOff");
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
        let mut d = p;
        d["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        assert_eq!(
            table(&info, &[d], json!({}), "None")["rows"][0]["cells"][2],
            "Terminating"
        );
    }

    #[test]
    fn wide_columns_for_sets_and_readiness_gates() {
        let all = builtins();
        let sts = all.iter().find(|r| r.plural == "statefulsets").unwrap();
        let o = json!({"metadata": {"name": "web"}, "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:2"}]}}}, "status": {"readyReplicas": 2}});
        let t = table(sts, std::slice::from_ref(&o), json!({}), "None");
        assert_eq!(
            t["rows"][0]["cells"],
            json!(["web", "2/3", "<unknown>", "a,b", "x:1,y:2"])
        );
        assert_eq!(t["columnDefinitions"][3]["priority"], 1);
        let pods = all.iter().find(|r| r.plural == "pods").unwrap();
        let p = json!({"metadata": {"name": "p"}, "spec": {"containers": [], "readinessGates": [{"conditionType": "a"}, {"conditionType": "b"}]},
            "status": {"conditions": [{"type": "a", "status": "True"}, {"type": "b", "status": "False"}]}});
        assert_eq!(
            table(pods, &[p], json!({}), "None")["rows"][0]["cells"][8],
            "1/2"
        );
    }
}
