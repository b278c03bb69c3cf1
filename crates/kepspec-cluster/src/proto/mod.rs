//! Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`)
//! for the built-in kinds, as kube-apiserver serves it
//! (k8s.io/apimachinery's `runtime/serializer/protobuf`): a body is the
//! four bytes `k8s\0` and a `runtime.Unknown` message whose `typeMeta`
//! names the kind and whose `raw` is the object's message.
//!
//! The messages are not compiled from `.proto` files: a generated table
//! ([`table`], from the Go types' `json` and `protobuf` tags) drives one
//! transcoder each way, so a protobuf body becomes the JSON object the
//! JSON path stores ([`to_json`]) and a stored object becomes the bytes
//! kube-apiserver would write ([`from_json`]). Custom resources have no
//! protobuf form (kube-apiserver answers them 415 too).

pub(crate) mod from_json;
pub(crate) mod schema;
pub(crate) mod table;
pub(crate) mod to_json;
pub(crate) mod wire;

use serde_json::{Map, Value};

use schema::Kind;
use wire::Raw;

/// The protobuf media type.
pub(crate) const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// What starts every protobuf body.
pub(crate) const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be read.
#[derive(Debug, PartialEq)]
pub enum Error {
    /// The envelope names a kind that has no protobuf form here (a custom
    /// resource, or one not served).
    UnknownKind { api_version: String, kind: String },
    /// The bytes are not a well-formed message.
    Malformed(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnknownKind { api_version, kind } => {
                write!(
                    f,
                    "no kind {kind:?} is registered for version {api_version:?}"
                )
            }
            Error::Malformed(e) => f.write_str(e),
        }
    }
}

/// The kind of `apiVersion` and `kind`. The options kinds, Status and
/// WatchEvent are meta.k8s.io's in every group version, as
/// `metav1.AddToGroupVersion` registers them; the discovery documents
/// (APIVersions, APIGroup, ...) too, as the unversioned types of `v1`.
pub(crate) fn kind(api_version: &str, kind: &str) -> Option<&'static Kind> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let find = |g: &str, v: &str| {
        table::KINDS
            .iter()
            .find(|k| k.group == g && k.version == v && k.kind == kind)
    };
    find(group, version).or_else(|| match version {
        "v1" => find("meta.k8s.io", "v1"),
        _ => None,
    })
}

/// The envelope of a protobuf body: `runtime.Unknown`.
#[derive(Debug, PartialEq)]
pub(crate) struct Unknown<'a> {
    pub api_version: String,
    pub kind: String,
    pub raw: &'a [u8],
}

/// Reads the envelope.
pub(crate) fn unwrap(body: &[u8]) -> Result<Unknown<'_>, Error> {
    let malformed = |e: String| Error::Malformed(e);
    let rest = body.strip_prefix(MAGIC).ok_or_else(|| {
        malformed("the body does not start with the protobuf prefix k8s\\x00".into())
    })?;
    let mut out = Unknown {
        api_version: String::new(),
        kind: String::new(),
        raw: &[],
    };
    for (num, raw) in wire::fields(rest).map_err(malformed)? {
        match (num, raw) {
            (1, Raw::Len(tm)) => {
                for (n, r) in wire::fields(tm).map_err(malformed)? {
                    if let Raw::Len(s) = r {
                        let s = String::from_utf8_lossy(s).into_owned();
                        match n {
                            1 => out.api_version = s,
                            2 => out.kind = s,
                            _ => {}
                        }
                    }
                }
            }
            (2, Raw::Len(raw)) => out.raw = raw,
            (3, Raw::Len(enc)) if !enc.is_empty() => {
                return Err(malformed(format!(
                    "the content encoding {:?} is not supported",
                    String::from_utf8_lossy(enc)
                )))
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Decodes a protobuf body into the JSON object kube-apiserver's types
/// would write, `kind` and `apiVersion` first.
pub fn decode(body: &[u8]) -> Result<Value, Error> {
    let u = unwrap(body)?;
    if u.kind.is_empty() {
        // The protobuf serializer's `NewMissingKindErr`.
        return Err(Error::Malformed(
            "Object 'Kind' is missing in the protobuf envelope".into(),
        ));
    }
    let k = kind(&u.api_version, &u.kind).ok_or_else(|| Error::UnknownKind {
        api_version: u.api_version.clone(),
        kind: u.kind.clone(),
    })?;
    let fields = to_json::message(k.msg, u.raw).map_err(Error::Malformed)?;
    let mut obj = Map::new();
    obj.insert("kind".into(), Value::String(u.kind));
    obj.insert("apiVersion".into(), Value::String(u.api_version));
    obj.extend(fields);
    Ok(Value::Object(obj))
}

/// Encodes an object (with its `apiVersion` and `kind`) as a protobuf body.
pub fn encode(obj: &Value) -> Result<Vec<u8>, Error> {
    let text = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind_name) = (text("apiVersion"), text("kind"));
    let k = kind(api_version, kind_name).ok_or_else(|| Error::UnknownKind {
        api_version: api_version.into(),
        kind: kind_name.into(),
    })?;
    let fields = obj
        .as_object()
        .ok_or_else(|| Error::Malformed("not an object".into()))?;
    let raw = from_json::message(k.msg, fields).map_err(Error::Malformed)?;
    Ok(wrap(api_version, kind_name, &raw))
}

/// Wraps a message in the envelope.
pub(crate) fn wrap(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    wire::put_len(&mut type_meta, 1, api_version.as_bytes());
    wire::put_len(&mut type_meta, 2, kind.as_bytes());
    let mut out = MAGIC.to_vec();
    wire::put_len(&mut out, 1, &type_meta);
    wire::put_len(&mut out, 2, raw);
    wire::put_len(&mut out, 3, b"");
    wire::put_len(&mut out, 4, b"");
    out
}

#[cfg(test)]
mod tests;
