//! Metadata-only responses, as kube-apiserver serves them to a client whose
//! `Accept` asks `as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (a get or a
//! watch) or `as=PartialObjectMetadataList` (a list): each object becomes
//! `{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
//! "metadata": ...}`, a list a `PartialObjectMetadataList` of those, with the
//! list's resourceVersion and continue token (the apiserver's
//! `asPartialObjectMetadata` / `asPartialObjectMetadataList` in
//! endpoints/handlers/response.go). client-go's metadata informers (the
//! garbage collector's) and kube-rs's `metadata_watcher` ask for it.

use axum::http::{header, HeaderMap};
use serde_json::{json, Value};

/// The `meta.k8s.io` version asked for (`v1` or `v1beta1`), when the client
/// asked for metadata only (and not a Table, which comes first).
pub(super) fn wants(headers: &HeaderMap) -> Option<&'static str> {
    let accept = headers.get(header::ACCEPT)?.to_str().ok()?;
    super::asked_as(
        accept,
        |media| media.ends_with("json") || media == "*/*" || media == crate::proto::MEDIA_TYPE,
        &["PartialObjectMetadata", "PartialObjectMetadataList"],
        "meta.k8s.io",
        &["v1", "v1beta1"],
    )
}

/// One object as PartialObjectMetadata.
pub(super) fn object(version: &str, obj: &Value) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": obj.get("metadata").cloned().unwrap_or_else(|| json!({})),
    })
}

/// A list as PartialObjectMetadataList with the list's `metadata`.
pub(super) fn list(version: &str, items: &[Value], meta: Value) -> Value {
    json!({
        "kind": "PartialObjectMetadataList",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": meta,
        "items": items.iter().map(|o| object(version, o)).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, v.parse().expect("header"));
        h
    }

    #[test]
    fn the_media_type_parameters_select_the_form() {
        assert_eq!(
            wants(&accept(
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
            )),
            Some("v1")
        );
        // client-go's metadata client: protobuf first, then JSON.
        assert_eq!(
            wants(&accept("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")),
            Some("v1")
        );
        assert_eq!(wants(&accept("application/json")), None);
        assert_eq!(
            wants(&accept("application/json;as=Table;g=meta.k8s.io;v=v1")),
            None
        );
    }

    #[test]
    fn only_the_metadata_is_kept() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "uid": "u"}, "spec": {"x": 1}});
        assert_eq!(
            object("v1", &pod),
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "p", "uid": "u"}})
        );
        let l = list("v1", &[pod], json!({"resourceVersion": "7"}));
        assert_eq!(l["kind"], "PartialObjectMetadataList");
        assert_eq!(l["items"][0]["kind"], "PartialObjectMetadata");
        assert_eq!(l["metadata"]["resourceVersion"], "7");
    }
}
