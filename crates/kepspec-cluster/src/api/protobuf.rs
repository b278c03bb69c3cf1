//! Protobuf on the wire, as kube-apiserver negotiates it for the built-in
//! kinds: a protobuf request body is read into the JSON object the JSON
//! path stores, and a client whose `Accept` puts protobuf first (client-go
//! configured as kube-controller-manager configures itself, kubectl's
//! typed commands) gets its objects, lists, errors and watch events in
//! protobuf ([`crate::proto`]). Custom resources have no protobuf
//! form: their bodies get 415 and their answers stay JSON, which such
//! clients also accept.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;
use serde_json::Value;

use crate::proto::{self, Error};
use crate::status::ApiError;

/// The Content-Type of a protobuf watch.
pub(super) const WATCH_MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// Reads a protobuf request body.
pub(super) fn decode_body(bytes: &[u8]) -> Result<Value, ApiError> {
    proto::decode(bytes).map_err(|e| match e {
        // What kube-apiserver answers for a custom resource's protobuf body.
        Error::UnknownKind { .. } => {
            ApiError::unsupported_media_type(&["application/json", "application/yaml"])
        }
        Error::Malformed(m) => {
            ApiError::bad_request(format!("couldn't decode the protobuf body: {m}"))
        }
    })
}

/// Whether the client takes protobuf first: the first media range of its
/// `Accept` that the server can answer is protobuf (plain, or as
/// PartialObjectMetadata). A protobuf Table is not served; such a range is
/// passed over for the next.
pub(super) fn wanted(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let as_kind = parts.find_map(|p| p.strip_prefix("as="));
        match media.as_str() {
            proto::MEDIA_TYPE => match as_kind {
                None | Some("PartialObjectMetadata" | "PartialObjectMetadataList") => return true,
                Some(_) => continue,
            },
            "application/json" | "application/yaml" | "application/*" | "*/*" => return false,
            _ => continue,
        }
    }
    false
}

/// A JSON answer in protobuf, when its kind has a protobuf form; otherwise
/// the JSON answer as it is.
pub(super) async fn answer(resp: Response) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == b"application/json");
    if !is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = http_body_util::BodyExt::collect(body)
        .await
        .map(|c| c.to_bytes())
    else {
        return Response::from_parts(parts, Body::empty());
    };
    let encoded =
        serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| match proto::encode(&v) {
                Ok(b) => Some(b),
                Err(Error::UnknownKind { .. }) => None,
                Err(Error::Malformed(m)) => {
                    tracing::warn!("answering in JSON: the object has no protobuf form: {m}");
                    None
                }
            });
    match encoded {
        Some(b) => {
            parts.headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(proto::MEDIA_TYPE),
            );
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(b))
        }
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// One watch event as a protobuf frame: a 4-byte big-endian length and a
/// `metav1.WatchEvent` without the envelope, whose `object.raw` is the
/// object with its envelope (the apiserver's stream and embedded
/// serializers). `None` when the object has no protobuf form.
pub(super) fn watch_frame(kind: &str, object: &Value) -> Option<Bytes> {
    let raw = proto::encode(object).ok()?;
    // metav1.WatchEvent: type (1), object (2), a RawExtension whose raw
    // (1) holds the object's bytes.
    let mut ext = Vec::with_capacity(raw.len() + 6);
    proto::wire::put_len(&mut ext, 1, &raw);
    let mut msg = Vec::with_capacity(ext.len() + kind.len() + 8);
    proto::wire::put_len(&mut msg, 1, kind.as_bytes());
    proto::wire::put_len(&mut msg, 2, &ext);
    let mut out = Vec::with_capacity(msg.len() + 4);
    out.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    out.extend_from_slice(&msg);
    Some(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, v.parse().expect("header"));
        h
    }

    #[test]
    fn the_first_range_the_server_answers_decides() {
        assert!(wanted(&accept("application/vnd.kubernetes.protobuf, */*")));
        assert!(wanted(&accept(
            "application/vnd.kubernetes.protobuf,application/json"
        )));
        assert!(!wanted(&accept(
            "application/json, application/vnd.kubernetes.protobuf"
        )));
        assert!(wanted(&accept(
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
        )));
        assert!(!wanted(&accept(
            "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json"
        )));
        assert!(!wanted(&HeaderMap::new()));
    }

    #[test]
    fn a_watch_frame_carries_the_object_with_its_envelope() {
        let pod = json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "web-0"}});
        let frame = watch_frame("ADDED", &pod).expect("a frame");
        let len = u32::from_be_bytes(frame[..4].try_into().expect("4 bytes")) as usize;
        assert_eq!(len, frame.len() - 4);
        let fields = proto::wire::fields(&frame[4..]).expect("fields");
        assert_eq!(fields[0], (1, proto::wire::Raw::Len(b"ADDED")));
        let Some((_, proto::wire::Raw::Len(ext))) = fields.iter().find(|(n, _)| *n == 2) else {
            panic!("no object");
        };
        let inner = proto::wire::fields(ext).expect("raw extension");
        let Some((_, proto::wire::Raw::Len(raw))) = inner.first() else {
            panic!("no raw");
        };
        let back = proto::decode(raw).expect("the object");
        assert_eq!(back["metadata"]["name"], "web-0");
    }
}
