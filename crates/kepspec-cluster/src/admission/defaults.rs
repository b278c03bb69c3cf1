//! Defaults of the served versions (`apps/v1`, `core/v1`) and of the
//! mutating admission plugins every cluster runs, applied to JSON in place.

use super::meta::{child_obj, default_value};
use super::{ApiGates, Operation};
use serde_json::{json, Map, Value};

/// `SetDefaults_StatefulSet` plus the defaults of its pod template and claim
/// templates.
pub(super) fn statefulset(obj: &mut Value, gates: &ApiGates) {
    let Some(root) = obj.as_object_mut() else {
        return;
    };
    let spec = child_obj(root, "spec");
    default_value(spec, "podManagementPolicy", json!("OrderedReady"));
    let strategy = child_obj(spec, "updateStrategy");
    if strategy
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .is_empty()
    {
        strategy.insert("type".into(), json!("RollingUpdate"));
        if !strategy.get("rollingUpdate").is_some_and(Value::is_object) {
            strategy.insert("rollingUpdate".into(), json!({}));
        }
    }
    if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
        if let Some(Value::Object(ru)) = strategy.get_mut("rollingUpdate") {
            default_value(ru, "partition", json!(0));
            if gates.max_unavailable_statefulset {
                default_value(ru, "maxUnavailable", json!(1));
            }
        }
    }
    let retention = child_obj(spec, "persistentVolumeClaimRetentionPolicy");
    default_value(retention, "whenDeleted", json!("Retain"));
    default_value(retention, "whenScaled", json!("Retain"));
    default_value(spec, "replicas", json!(1));
    default_value(spec, "revisionHistoryLimit", json!(10));

    let template = child_obj(spec, "template");
    pod_spec(child_obj(template, "spec"));

    if let Some(Value::Array(claims)) = spec.get_mut("volumeClaimTemplates") {
        for claim in claims.iter_mut().filter_map(Value::as_object_mut) {
            claim_spec(child_obj(claim, "spec"));
            default_value(child_obj(claim, "status"), "phase", json!("Pending"));
        }
    }
}

/// `SetDefaults_PodSpec` with the container, volume and probe defaults.
pub(super) fn pod_spec(spec: &mut Map<String, Value>) {
    default_value(spec, "dnsPolicy", json!("ClusterFirst"));
    default_value(spec, "restartPolicy", json!("Always"));
    default_value(spec, "terminationGracePeriodSeconds", json!(30));
    default_value(spec, "schedulerName", json!("default-scheduler"));
    if !spec.get("securityContext").is_some_and(Value::is_object) {
        spec.insert("securityContext".into(), json!({}));
    }
    for list in ["initContainers", "containers"] {
        if let Some(Value::Array(items)) = spec.get_mut(list) {
            for c in items.iter_mut().filter_map(Value::as_object_mut) {
                container(c);
            }
        }
    }
    if let Some(Value::Array(volumes)) = spec.get_mut("volumes") {
        for v in volumes.iter_mut().filter_map(Value::as_object_mut) {
            volume(v);
        }
    }
}

fn container(c: &mut Map<String, Value>) {
    let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
    let policy = default_pull_policy(image);
    default_value(c, "imagePullPolicy", json!(policy));
    default_value(c, "terminationMessagePath", json!("/dev/termination-log"));
    default_value(c, "terminationMessagePolicy", json!("File"));
    if !c.get("resources").is_some_and(Value::is_object) {
        c.insert("resources".into(), json!({}));
    }
    if let Some(Value::Array(ports)) = c.get_mut("ports") {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            default_value(p, "protocol", json!("TCP"));
        }
    }
    if let Some(Value::Array(env)) = c.get_mut("env") {
        for e in env.iter_mut() {
            if let Some(Value::Object(field_ref)) = e.pointer_mut("/valueFrom/fieldRef") {
                default_value(field_ref, "apiVersion", json!("v1"));
            }
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(Value::Object(p)) = c.get_mut(probe) {
            default_value(p, "timeoutSeconds", json!(1));
            default_value(p, "periodSeconds", json!(10));
            default_value(p, "successThreshold", json!(1));
            default_value(p, "failureThreshold", json!(3));
            if let Some(Value::Object(get)) = p.get_mut("httpGet") {
                default_value(get, "path", json!("/"));
                default_value(get, "scheme", json!("HTTP"));
            }
        }
    }
}

/// `SetDefaults_Container`'s pull policy: `Always` for `:latest` or no tag,
/// otherwise `IfNotPresent` (digests included).
pub(super) fn default_pull_policy(image: &str) -> &'static str {
    let last = image.rsplit('/').next().unwrap_or(image);
    if last.contains('@') {
        return "IfNotPresent";
    }
    match last.split_once(':') {
        Some((_, tag)) if tag != "latest" => "IfNotPresent",
        _ => "Always",
    }
}

fn volume(v: &mut Map<String, Value>) {
    const SOURCES: [&str; 14] = [
        "emptyDir",
        "hostPath",
        "secret",
        "configMap",
        "persistentVolumeClaim",
        "downwardAPI",
        "projected",
        "nfs",
        "csi",
        "ephemeral",
        "image",
        "iscsi",
        "fc",
        "local",
    ];
    if !SOURCES.iter().any(|s| v.contains_key(*s)) {
        v.insert("emptyDir".into(), json!({}));
    }
    for source in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(Value::Object(s)) = v.get_mut(source) {
            default_value(s, "defaultMode", json!(420));
        }
    }
}

fn claim_spec(spec: &mut Map<String, Value>) {
    default_value(spec, "volumeMode", json!("Filesystem"));
}

/// `SetDefaults_Pod` and the mutating admission plugins (ServiceAccount,
/// Priority, DefaultTolerationSeconds, which act on create only).
pub(super) fn pod(obj: &mut Value, op: Operation) {
    let Some(root) = obj.as_object_mut() else {
        return;
    };
    let spec = child_obj(root, "spec");
    pod_spec(spec);
    if let Some(Value::Array(containers)) = spec.get_mut("containers") {
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            requests_from_limits(c);
        }
    }
    default_value(spec, "enableServiceLinks", json!(true));
    if op == Operation::Create {
        default_value(spec, "serviceAccountName", json!("default"));
        let sa = spec
            .get("serviceAccountName")
            .cloned()
            .unwrap_or(json!("default"));
        default_value(spec, "serviceAccount", sa);
        default_value(spec, "priority", json!(0));
        default_value(spec, "preemptionPolicy", json!("PreemptLowerPriority"));
        default_tolerations(spec);
    }
}

fn requests_from_limits(c: &mut Map<String, Value>) {
    let resources = child_obj(c, "resources");
    let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    let requests = child_obj(resources, "requests");
    for (k, v) in limits {
        requests.entry(k).or_insert(v);
    }
}

fn default_tolerations(spec: &mut Map<String, Value>) {
    let slot = spec.entry("tolerations").or_insert_with(|| json!([]));
    if !slot.is_array() {
        *slot = json!([]);
    }
    let Value::Array(list) = slot else {
        return;
    };
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = list.iter().any(|t| {
            let k = t.get("key").and_then(Value::as_str);
            let effect = t.get("effect").and_then(Value::as_str).unwrap_or_default();
            let op = t.get("operator").and_then(Value::as_str);
            (k == Some(key) || (k.is_none() && op == Some("Exists")))
                && (effect.is_empty() || effect == "NoExecute")
        });
        if !tolerated {
            list.push(json!({
                "key": key,
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300
            }));
        }
    }
}

/// `SetDefaults_PersistentVolumeClaim`; status starts as `Pending` on create.
pub(super) fn persistent_volume_claim(obj: &mut Value, op: Operation) {
    let Some(root) = obj.as_object_mut() else {
        return;
    };
    claim_spec(child_obj(root, "spec"));
    if op == Operation::Create {
        root.insert("status".into(), json!({"phase": "Pending"}));
    } else {
        default_value(child_obj(root, "status"), "phase", json!("Pending"));
    }
}

/// `SetDefaults_PersistentVolume`; status starts as `Pending` on create.
pub(super) fn persistent_volume(obj: &mut Value, op: Operation) {
    let Some(root) = obj.as_object_mut() else {
        return;
    };
    let spec = child_obj(root, "spec");
    default_value(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
    default_value(spec, "volumeMode", json!("Filesystem"));
    if op == Operation::Create {
        root.insert("status".into(), json!({"phase": "Pending"}));
    } else {
        default_value(child_obj(root, "status"), "phase", json!("Pending"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        assert_eq!(default_pull_policy("busybox"), "Always");
        assert_eq!(default_pull_policy("busybox:latest"), "Always");
        assert_eq!(default_pull_policy("busybox:1.36"), "IfNotPresent");
        assert_eq!(default_pull_policy("localhost:5000/app"), "Always");
        assert_eq!(default_pull_policy("localhost:5000/app:v1"), "IfNotPresent");
        assert_eq!(default_pull_policy("app@sha256:abcd"), "IfNotPresent");
    }

    #[test]
    fn pod_spec_defaults() {
        let mut spec = json!({
            "containers": [{"name": "a", "image": "busybox:1.36", "ports": [{"containerPort": 80}],
                "readinessProbe": {"httpGet": {"port": 80}},
                "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
            "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "c"}}]
        });
        pod_spec(spec.as_object_mut().unwrap());
        assert_eq!(spec["dnsPolicy"], "ClusterFirst");
        assert_eq!(spec["restartPolicy"], "Always");
        assert_eq!(spec["terminationGracePeriodSeconds"], 30);
        assert_eq!(spec["schedulerName"], "default-scheduler");
        assert_eq!(spec["securityContext"], json!({}));
        let c = &spec["containers"][0];
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["terminationMessagePolicy"], "File");
        assert_eq!(c["resources"], json!({}));
        assert_eq!(c["ports"][0]["protocol"], "TCP");
        assert_eq!(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(
            c["readinessProbe"],
            json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
        );
        assert_eq!(spec["volumes"][0]["emptyDir"], json!({}));
        assert_eq!(spec["volumes"][1]["configMap"]["defaultMode"], 420);
        assert!(
            spec.get("enableServiceLinks").is_none(),
            "templates don't get it"
        );
    }

    #[test]
    fn pod_defaults_on_create() {
        let mut pod = json!({"spec": {"containers": [{"name": "a", "image": "x:1",
            "resources": {"limits": {"cpu": "1"}}}],
            "tolerations": [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]}});
        super::pod(&mut pod, Operation::Create);
        let spec = &pod["spec"];
        assert_eq!(spec["enableServiceLinks"], true);
        assert_eq!(spec["serviceAccountName"], "default");
        assert_eq!(spec["serviceAccount"], "default");
        assert_eq!(spec["priority"], 0);
        assert_eq!(spec["preemptionPolicy"], "PreemptLowerPriority");
        assert_eq!(spec["containers"][0]["resources"]["requests"]["cpu"], "1");
        let tolerations = spec["tolerations"].as_array().unwrap();
        assert_eq!(
            tolerations.len(),
            2,
            "the existing unreachable toleration is kept"
        );
        assert_eq!(tolerations[1]["key"], "node.kubernetes.io/not-ready");
        assert_eq!(tolerations[1]["tolerationSeconds"], 300);
    }

    #[test]
    fn claim_and_volume_defaults() {
        let mut pvc = json!({"spec": {}, "status": {"phase": "Bound"}});
        persistent_volume_claim(&mut pvc, Operation::Create);
        assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
        assert_eq!(pvc["status"], json!({"phase": "Pending"}));
        let mut pv = json!({"spec": {}});
        persistent_volume(&mut pv, Operation::Update);
        assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
        assert_eq!(pv["status"]["phase"], "Pending");
    }
}
