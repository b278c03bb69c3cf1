//! `get` and `list`.

use axum::response::Response;
use http::StatusCode;
use serde_json::{json, Map, Value};
use std::sync::Arc;

use super::super::resources::ResourceInfo;
use super::super::selector::{FieldSelector, LabelSelector};
use super::super::status::ApiError;
use super::{json_response, sub, Req};

/// An object as served by one resource version endpoint.
pub(super) fn output(info: &ResourceInfo, mut obj: Value) -> Value {
    if super::super::convert::is_events_v1(info) {
        return super::super::convert::core_to_events_v1(&obj);
    }
    let Some(m) = obj.as_object_mut() else {
        return obj;
    };
    // kube-apiserver writes its Go structs' field order: TypeMeta's kind,
    // then apiVersion, then metadata, before the rest.
    let mut out = serde_json::Map::with_capacity(m.len() + 2);
    out.insert("kind".into(), json!(info.kind));
    out.insert("apiVersion".into(), json!(info.api_version()));
    if let Some(meta) = m.remove("metadata") {
        out.insert("metadata".into(), meta);
    }
    for (k, v) in std::mem::take(m) {
        if k != "kind" && k != "apiVersion" {
            out.insert(k, v);
        }
    }
    Value::Object(out)
}

/// Parsed `labelSelector` and `fieldSelector`.
pub(super) struct Selectors {
    /// Label selector.
    pub labels: LabelSelector,
    /// Field selector.
    pub fields: FieldSelector,
}

impl Selectors {
    /// From the query parameters (400 on a malformed selector).
    pub(super) fn from_req(req: &Req<'_>) -> Result<Self, ApiError> {
        let labels =
            LabelSelector::parse(req.params.get("labelSelector").map_or("", String::as_str))
                .map_err(ApiError::bad_request)?;
        let fields = FieldSelector::parse(
            req.params.get("fieldSelector").map_or("", String::as_str),
            &req.info.group,
            &req.info.plural,
        )
        .map_err(ApiError::bad_request)?;
        Ok(Selectors { labels, fields })
    }

    /// Whether an object is selected.
    pub(super) fn matches(&self, obj: &Value) -> bool {
        self.labels.matches(obj) && self.fields.matches(obj)
    }

    /// No selector given.
    pub(super) fn is_empty(&self) -> bool {
        self.labels.0.is_empty() && self.fields.0.is_empty()
    }
}

/// `GET .../name[/status|/scale]`.
pub(super) fn get(req: &Req<'_>) -> Result<Response, ApiError> {
    let info = req.info;
    let store = &req.state.store;
    let current = || store.get(&info.gr(), req.ns, req.name);
    let obj = match req.stale_view() {
        Some((id, view, floor)) => {
            let at = view.view(store, std::time::Instant::now()).max(floor);
            match store.get_at(&info.gr(), req.ns, req.name, at) {
                Ok(old) => {
                    let behind = old != current();
                    req.state.faults.count_stale(id, true, behind);
                    old
                }
                Err(_) => current(),
            }
        }
        None => current(),
    }
    .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, req.name))?;
    let out = match req.sub {
        "scale" => sub::scale_of(info, &obj),
        "log" => return super::logs::get(req, &obj),
        "" | "status" | "ephemeralcontainers" if req.table().is_some() => {
            let include = req.table().unwrap_or_default();
            let rv = obj["metadata"]["resourceVersion"].clone();
            super::table::table(info, &[obj], json!({"resourceVersion": rv}), &include)
        }
        "" | "status" | "ephemeralcontainers" => match req.metadata_only() {
            Some(version) => super::partial::object(version, &obj),
            None => output(info, obj),
        },
        _ => return Err(ApiError::method_not_allowed()),
    };
    Ok(json_response(StatusCode::OK, &out))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn b64_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn b64_decode(s: &str) -> Option<Vec<u8>> {
    let mut bits: u32 = 0;
    let mut nbits = 0;
    let mut out = Vec::new();
    for c in s.trim_end_matches('=').bytes() {
        let v = B64.iter().position(|&x| x == c)? as u32;
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    Some(out)
}

/// Encodes a continue token: the list's resourceVersion and the key to start after.
pub(super) fn encode_continue(rv: u64, start: &str) -> String {
    let j = json!({"v": "meta.k8s.io/v1", "rv": rv, "start": format!("{start}\u{0}")});
    b64_encode(j.to_string().as_bytes())
}

/// Decodes a continue token.
pub(super) fn decode_continue(token: &str) -> Option<(u64, String)> {
    let bytes = b64_decode(token)?;
    let j: Value = serde_json::from_slice(&bytes).ok()?;
    if j["v"] != "meta.k8s.io/v1" {
        return None;
    }
    let rv = j["rv"].as_u64()?;
    let start = j["start"].as_str()?.trim_end_matches('\u{0}').to_string();
    Some((rv, start))
}

fn sort_key(obj: &Value) -> String {
    let ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}/{name}")
    }
}

/// The bytes of [`sort_key`], without making it.
fn sort_key_bytes(obj: &Value) -> impl Iterator<Item = u8> + '_ {
    let ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    let slash: &[u8] = if ns.is_empty() { b"" } else { b"/" };
    ns.bytes().chain(slash.iter().copied()).chain(name.bytes())
}

/// Orders two objects as their [`sort_key`]s (etcd's key order).
fn by_sort_key(a: &Value, b: &Value) -> std::cmp::Ordering {
    sort_key_bytes(a).cmp(sort_key_bytes(b))
}

/// The objects a list answers with and their resourceVersion: the current
/// state, or the state a stale view shows this client.
/// A list's objects, shared with the store, and its resourceVersion.
type Listing = (Vec<Arc<Value>>, u64);

fn list_state(req: &Req<'_>, ns: Option<&str>) -> Listing {
    let store = &req.state.store;
    let gr = req.info.gr();
    if let Some((id, view, floor)) = req.stale_view() {
        let at = view.view(store, std::time::Instant::now()).max(floor);
        if at < store.resource_version() {
            if let Ok(items) = store.list_at(&gr, ns, at) {
                let behind = store.changed_since(&gr, ns, at);
                req.state.faults.count_stale(id, true, behind);
                return (items, at);
            }
        }
        req.state.faults.count_stale(id, true, false);
    }
    store.list(&gr, ns)
}

/// kube-apiserver's answer to a continue token whose resourceVersion etcd
/// has compacted (storage/etcd3/errors.go, `continueExpired`).
const CONTINUE_EXPIRED: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.";

/// kube-apiserver's answer to an `Exact` list at a compacted
/// resourceVersion (storage/etcd3/errors.go, `expiredList`).
const LIST_EXPIRED: &str = "The resourceVersion for the provided list is too old.";

/// The snapshot a list reads, as etcd's MVCC serves kube-apiserver: a
/// continued list at its first page's resourceVersion (the token carries
/// it), an `Exact` list at the resourceVersion it names; 410 `Expired` once
/// the store's window no longer reaches back there. `None`: the latest
/// state (or the client's stale view).
fn snapshot(
    req: &Req<'_>,
    ns: Option<&str>,
    continued: Option<u64>,
    rv_param: &str,
) -> Result<Option<Listing>, ApiError> {
    let store = &req.state.store;
    let gr = req.info.gr();
    let exact = req
        .params
        .get("resourceVersionMatch")
        .is_some_and(|m| m == "Exact");
    let (at, expired) = match (continued, exact) {
        (Some(at), _) => (at, CONTINUE_EXPIRED),
        (None, true) => {
            let at: u64 = rv_param.parse().map_err(|_| {
                ApiError::bad_request(format!("invalid resourceVersion {rv_param:?}"))
            })?;
            let current = store.resource_version();
            if at > current {
                // storage.NewTooLargeResourceVersionError: etcd has no such
                // revision yet.
                let mut e = ApiError::new(
                    504,
                    "Timeout",
                    format!("Too large resource version: {at}, current: {current}"),
                );
                e.retry_after_seconds = Some(1);
                return Err(e);
            }
            (at, LIST_EXPIRED)
        }
        (None, false) => return Ok(None),
    };
    match store.list_at(&gr, ns, at) {
        Ok(items) => Ok(Some((items, at))),
        Err(_) => Err(ApiError::gone(expired)),
    }
}

/// `GET` a collection.
pub(super) fn list(req: &Req<'_>) -> Result<Response, ApiError> {
    let info = req.info;
    let sel = Selectors::from_req(req)?;
    let ns = (!req.all_namespaces).then_some(req.ns);
    let rv_param = req
        .params
        .get("resourceVersion")
        .map(String::as_str)
        .unwrap_or("");
    let continued = match req.params.get("continue").filter(|t| !t.is_empty()) {
        Some(token) => Some(decode_continue(token).ok_or_else(|| {
            ApiError::bad_request("continue key is not valid: illegal base64 data at input byte 0")
        })?),
        None => None,
    };
    let (items, rv) = match snapshot(req, ns, continued.as_ref().map(|(rv, _)| *rv), rv_param)? {
        Some(state) => state,
        None => list_state(req, ns),
    };
    let mut items: Vec<Arc<Value>> = items.into_iter().filter(|o| sel.matches(o)).collect();
    items.sort_by(|a, b| by_sort_key(a, b));
    let limit: usize = match req.params.get("limit") {
        Some(l) => l
            .parse::<i64>()
            .map_err(|_| ApiError::bad_request(format!("invalid limit {l:?}")))?
            .max(0) as usize,
        None => 0,
    };
    if let Some((_, start)) = &continued {
        items.retain(|o| sort_key_bytes(o).cmp(start.bytes()).is_gt());
    }
    let mut meta = Map::new();
    if limit > 0 && rv_param != "0" && items.len() > limit {
        let remaining = items.len() - limit;
        items.truncate(limit);
        let last = items.last().map(|o| sort_key(o)).unwrap_or_default();
        meta.insert("continue".into(), json!(encode_continue(rv, &last)));
        if sel.is_empty() {
            meta.insert("remainingItemCount".into(), json!(remaining));
        }
    }
    meta.insert("resourceVersion".into(), json!(rv.to_string()));
    if let Some(include) = req.table() {
        let items: Vec<Value> = items.iter().map(|o| Value::clone(o)).collect();
        let t = super::table::table(info, &items, Value::Object(meta), &include);
        return Ok(json_response(StatusCode::OK, &t));
    }
    if let Some(version) = req.metadata_only() {
        let l = super::partial::List {
            version,
            items: &items,
            meta: &meta,
        };
        return Ok(super::serialized_response(StatusCode::OK, &l));
    }
    if super::super::convert::is_events_v1(info) {
        let items: Vec<Value> = items
            .iter()
            .map(|o| output(info, Value::clone(o)))
            .collect();
        let body = json!({"kind": info.list_kind, "apiVersion": info.api_version(), "metadata": meta, "items": items});
        return Ok(json_response(StatusCode::OK, &body));
    }
    // Each item is written from the stored object as it is: a list of many
    // pods copies none of them.
    let items: Vec<Served<'_>> = items
        .iter()
        .map(|o| Served {
            info,
            object: o,
            typed: !info.builtin,
        })
        .collect();
    let body = ListBody {
        kind: &info.list_kind,
        api_version: info.api_version(),
        metadata: &meta,
        items: &items,
    };
    Ok(super::serialized_response(StatusCode::OK, &body))
}

/// A list response's body, as kube-apiserver writes it: kind, apiVersion,
/// metadata, items.
#[derive(serde::Serialize)]
struct ListBody<'a> {
    kind: &'a str,
    #[serde(rename = "apiVersion")]
    api_version: String,
    metadata: &'a Map<String, Value>,
    items: &'a [Served<'a>],
}

/// A stored object as [`output`] writes it (kind, apiVersion, metadata,
/// then the rest in stored order), serialized from the stored value; a
/// built-in kind's list items carry no kind and apiVersion (`typed` false),
/// as kube-apiserver's do. Not for `events.k8s.io` (see [`output`]).
pub(super) struct Served<'a> {
    info: &'a ResourceInfo,
    object: &'a Value,
    typed: bool,
}

impl<'a> Served<'a> {
    /// The object whole, kind and apiVersion first.
    pub(super) fn whole(info: &'a ResourceInfo, object: &'a Value) -> Self {
        Served {
            info,
            object,
            typed: true,
        }
    }
}

impl serde::Serialize for Served<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let Some(m) = self.object.as_object() else {
            return self.object.serialize(s);
        };
        let mut map = s.serialize_map(None)?;
        if self.typed {
            map.serialize_entry("kind", &self.info.kind)?;
            map.serialize_entry("apiVersion", &self.info.api_version())?;
        }
        if let Some(meta) = m.get("metadata") {
            map.serialize_entry("metadata", meta)?;
        }
        for (k, v) in m {
            if k != "kind" && k != "apiVersion" && k != "metadata" {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_served_without_a_copy_is_written_as_output_writes_it() {
        let pods = super::super::super::resources::builtins()
            .into_iter()
            .find(|i| i.plural == "pods" && i.group.is_empty())
            .unwrap();
        let pod = json!({"spec": {"x": 1}, "apiVersion": "v1", "metadata": {"name": "p"},
                         "status": {"phase": "Running"}, "kind": "Pod"});
        let written = |s: &Served<'_>| serde_json::to_string(s).unwrap();
        assert_eq!(
            written(&Served::whole(&pods, &pod)),
            serde_json::to_string(&output(&pods, pod.clone())).unwrap(),
            "the same keys in the same order"
        );
        let item = Served {
            info: &pods,
            object: &pod,
            typed: false,
        };
        assert_eq!(
            written(&item),
            r#"{"metadata":{"name":"p"},"spec":{"x":1},"status":{"phase":"Running"}}"#,
            "a built-in kind's list item has no kind and apiVersion"
        );
    }

    #[test]
    fn the_sort_key_order_is_compared_without_making_keys() {
        let o = |ns: &str, name: &str| json!({"metadata": {"namespace": ns, "name": name}});
        let objects = [
            o("a", "b"),
            o("a-x", "c"),
            o("", "z"),
            o("a", "a"),
            o("b", ""),
        ];
        for x in &objects {
            for y in &objects {
                assert_eq!(by_sort_key(x, y), sort_key(x).cmp(&sort_key(y)), "{x} {y}");
            }
        }
    }

    #[test]
    fn continue_token_round_trips() {
        for start in ["", "a", "ns/web-0", "xyz/abc-12345"] {
            let t = encode_continue(42, start);
            assert_eq!(decode_continue(&t), Some((42, start.to_string())));
        }
        assert_eq!(decode_continue("!!!"), None);
        assert_eq!(decode_continue(&b64_encode(b"{\"v\":\"x\"}")), None);
    }
}
