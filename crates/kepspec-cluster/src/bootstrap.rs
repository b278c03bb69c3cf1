//! What every real cluster holds from the start, and what kube-apiserver's
//! ServiceAccount admission does with it:
//! - the `default/kubernetes` Service, Endpoints and EndpointSlice
//!   (kube-apiserver's own endpoint, made by its bootstrap controller and
//!   endpoint reconciler);
//! - a `default` ServiceAccount in every namespace (kube-controller-manager's
//!   serviceaccount controller makes it, and makes it again when deleted);
//! - pods get `serviceAccountName: default` when they name none, and a pod
//!   naming a ServiceAccount that does not exist is refused with 403, as
//!   plugin/pkg/admission/serviceaccount/admission.go does: "service account
//!   `<ns>/<name>` was not found, retry after the service account is created".
//!
//! Differences (listed in docs/src/embedded-cluster.md): the default ServiceAccount is made in
//! the same transaction as its namespace rather than moments later, so no
//! client ever sees a namespace without one; there is no token volume (the
//! server speaks plain HTTP and has no cluster CA), and for the same reason
//! no `kube-root-ca.crt` ConfigMap is published.

use serde_json::{json, Value};

use super::status::ApiError;
use super::store::{Gr, ObjKey};

/// Name of the ServiceAccount pods run as when they name none.
pub(crate) const DEFAULT_SERVICE_ACCOUNT: &str = "default";

/// The group/resource of ServiceAccounts.
pub(crate) fn service_accounts() -> Gr {
    Gr::new("", "serviceaccounts")
}

/// The ServiceAccount every namespace gets.
pub(crate) fn default_service_account(ns: &str) -> (ObjKey, Value) {
    (
        ObjKey::new(&service_accounts(), ns, DEFAULT_SERVICE_ACCOUNT),
        json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": DEFAULT_SERVICE_ACCOUNT, "namespace": ns}}),
    )
}

/// The `default/kubernetes` Service, as kube-apiserver's kubernetesservice
/// controller makes it (pkg/controlplane/controller/kubernetesservice): the
/// first address of kubeadm's default service range, `https` on 443 to the
/// apiserver's own port (`port`, where kubeadm's is 6443), no selector.
pub(crate) fn kubernetes_service(port: u16) -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"clusterIP": "10.96.0.1", "type": "ClusterIP", "sessionAffinity": "None",
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]}})
}

/// The `default/kubernetes` Endpoints naming the apiserver's address, as the
/// lease endpoint reconciler writes it (pkg/controlplane/reconcilers):
/// labelled `endpointslice.kubernetes.io/skip-mirror: "true"`, one subset.
pub(crate) fn kubernetes_endpoints(addr: std::net::SocketAddr) -> Value {
    json!({"apiVersion": "v1", "kind": "Endpoints",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
        "subsets": [{"addresses": [{"ip": addr.ip().to_string()}],
            "ports": [{"name": "https", "port": addr.port(), "protocol": "TCP"}]}]})
}

/// The `default/kubernetes` EndpointSlice the same reconciler writes beside
/// the Endpoints (its endpointsadapter): named as the Service, labelled
/// only with `kubernetes.io/service-name`.
pub(crate) fn kubernetes_endpoint_slice(addr: std::net::SocketAddr) -> Value {
    let family = if addr.is_ipv6() { "IPv6" } else { "IPv4" };
    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"kubernetes.io/service-name": "kubernetes"}},
        "addressType": family,
        "endpoints": [{"addresses": [addr.ip().to_string()], "conditions": {"ready": true}}],
        "ports": [{"name": "https", "port": addr.port(), "protocol": "TCP"}]})
}

/// Active namespaces (in `objects`) whose default ServiceAccount is missing:
/// what the serviceaccount controller would make again (pure).
pub(crate) fn missing_service_accounts<V: std::borrow::Borrow<Value>>(
    objects: &[(ObjKey, V)],
) -> Vec<String> {
    let ns_gr = Gr::new("", "namespaces");
    let sa_gr = service_accounts();
    let served: std::collections::HashSet<&str> = objects
        .iter()
        .filter(|(k, _)| k.gr == sa_gr && k.name == DEFAULT_SERVICE_ACCOUNT)
        .map(|(k, _)| k.namespace.as_str())
        .collect();
    let mut out: Vec<String> = objects
        .iter()
        .filter(|(k, o)| k.gr == ns_gr && o.borrow()["metadata"].get("deletionTimestamp").is_none())
        .map(|(k, _)| k.name.clone())
        .filter(|ns| !served.contains(ns.as_str()))
        .collect();
    out.sort();
    out
}

/// ServiceAccount admission of a pod being created in `ns`: defaults the
/// account's name, then requires the account to exist (`exists`).
pub(crate) fn admit_pod(
    pod: &mut Value,
    ns: &str,
    exists: impl Fn(&str) -> bool,
) -> Result<(), ApiError> {
    let name = pod["metadata"]["name"]
        .as_str()
        .or_else(|| pod["metadata"]["generateName"].as_str())
        .unwrap_or_default()
        .to_string();
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let account = match spec.get("serviceAccountName").and_then(Value::as_str) {
        Some(a) if !a.is_empty() => a.to_string(),
        _ => match spec.get("serviceAccount").and_then(Value::as_str) {
            Some(a) if !a.is_empty() => a.to_string(),
            _ => DEFAULT_SERVICE_ACCOUNT.to_string(),
        },
    };
    spec.insert("serviceAccountName".into(), json!(account));
    // The v1 API mirrors the name in the deprecated field.
    spec.insert("serviceAccount".into(), json!(account));
    if exists(&account) {
        return Ok(());
    }
    let mut e = ApiError::new(
        403,
        "Forbidden",
        format!(
            "pods {name:?} is forbidden: service account {ns}/{account} was not found, retry after the service account is created"
        ),
    );
    e.name = Some(name);
    e.group = Some(String::new());
    e.kind = Some("pods".into());
    Err(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_runs_as_default_and_a_missing_account_is_refused_as_upstream() {
        let mut pod = json!({"metadata": {"name": "web-0"}, "spec": {"containers": []}});
        assert!(admit_pod(&mut pod, "ns", |a| a == "default").is_ok());
        assert_eq!(pod["spec"]["serviceAccountName"], "default");
        assert_eq!(pod["spec"]["serviceAccount"], "default");
        let mut pod =
            json!({"metadata": {"name": "web-0"}, "spec": {"serviceAccountName": "robot"}});
        let e = admit_pod(&mut pod, "ns", |a| a == "default").unwrap_err();
        assert_eq!(e.code, 403);
        assert_eq!(
            e.message,
            "pods \"web-0\" is forbidden: service account ns/robot was not found, retry after the service account is created"
        );
    }

    #[test]
    fn only_active_namespaces_without_the_account_need_one() {
        let ns = |n: &str, deleting: bool| {
            let mut o = json!({"metadata": {"name": n}});
            if deleting {
                o["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
            }
            (ObjKey::new(&Gr::new("", "namespaces"), "", n), o)
        };
        let objects = vec![
            ns("a", false),
            ns("b", false),
            ns("c", true),
            default_service_account("a"),
        ];
        assert_eq!(missing_service_accounts(&objects), vec!["b".to_string()]);
    }
}
