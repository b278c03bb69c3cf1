//! Defaults the apiserver itself fills in for built-in types outside admission
//! (the service IP allocator and the service defaults that go with it).

use serde_json::{json, Value};

/// Fills in a Service's cluster IP(s) and the fields upstream defaults with it.
/// `seed` picks the address (the current resourceVersion keeps them unique).
pub(crate) fn service(obj: &mut Value, seed: u64) {
    let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let headless = spec.get("clusterIP").and_then(Value::as_str) == Some("None");
    if spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        let n = seed % 65000 + 10;
        spec.insert(
            "clusterIP".into(),
            json!(format!("10.96.{}.{}", n / 256, n % 256)),
        );
    }
    let ip = spec.get("clusterIP").cloned().unwrap_or(json!("None"));
    spec.entry("clusterIPs").or_insert_with(|| json!([ip]));
    spec.entry("type").or_insert_with(|| json!("ClusterIP"));
    spec.entry("sessionAffinity")
        .or_insert_with(|| json!("None"));
    spec.entry("ipFamilies").or_insert_with(|| json!(["IPv4"]));
    spec.entry("ipFamilyPolicy")
        .or_insert_with(|| json!("SingleStack"));
    spec.entry("internalTrafficPolicy")
        .or_insert_with(|| json!("Cluster"));
    if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            p.entry("protocol").or_insert_with(|| json!("TCP"));
            if !headless || p.contains_key("port") {
                if let Some(port) = p.get("port").cloned() {
                    p.entry("targetPort").or_insert(port);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_gets_ip_and_port_defaults() {
        let mut s = json!({"spec": {"ports": [{"port": 80}]}});
        service(&mut s, 5);
        assert_eq!(s["spec"]["clusterIP"], "10.96.0.15");
        assert_eq!(s["spec"]["ports"][0]["targetPort"], 80);
        let mut h = json!({"spec": {"clusterIP": "None"}});
        service(&mut h, 5);
        assert_eq!(h["spec"]["clusterIPs"], json!(["None"]));
    }
}
