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

/// A list as PartialObjectMetadataList with the list's `metadata`,
/// written from the listed objects without copying them.
pub(super) struct List<'a, T> {
    /// The `meta.k8s.io` version.
    pub(super) version: &'a str,
    /// The listed objects.
    pub(super) items: &'a [T],
    /// The list's metadata.
    pub(super) meta: &'a serde_json::Map<String, Value>,
}

impl<T: std::borrow::Borrow<Value>> serde::Serialize for List<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let api_version = format!("meta.k8s.io/{}", self.version);
        let items: Vec<Item<'_>> = self
            .items
            .iter()
            .map(|o| Item {
                api_version: &api_version,
                object: o.borrow(),
            })
            .collect();
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("kind", "PartialObjectMetadataList")?;
        map.serialize_entry("apiVersion", &api_version)?;
        map.serialize_entry("metadata", self.meta)?;
        map.serialize_entry("items", &items)?;
        map.end()
    }
}

/// One listed object as PartialObjectMetadata (see [`object`]).
struct Item<'a> {
    api_version: &'a str,
    object: &'a Value,
}

impl serde::Serialize for Item<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let empty = serde_json::Map::new();
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("kind", "PartialObjectMetadata")?;
        map.serialize_entry("apiVersion", self.api_version)?;
        match self.object.get("metadata") {
            Some(meta) => map.serialize_entry("metadata", meta)?,
            None => map.serialize_entry("metadata", &empty)?,
        }
        map.end()
    }
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
        let mut meta = serde_json::Map::new();
        meta.insert("resourceVersion".into(), json!("7"));
        let l = serde_json::to_value(List {
            version: "v1",
            items: &[pod.clone(), json!({"kind": "Pod"})],
            meta: &meta,
        })
        .unwrap();
        assert_eq!(
            l,
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": "7"},
                   "items": [object("v1", &pod), object("v1", &json!({"kind": "Pod"}))]})
        );
    }
}
