//! authorization.k8s.io's self-reviews, answered and never stored, as
//! kube-apiserver answers them: `kubectl auth can-i` posts a
//! SelfSubjectAccessReview and prints "yes" for `status.allowed`, `kubectl
//! auth can-i --list` a SelfSubjectRulesReview. The embedded cluster has
//! no RBAC (its one token may do anything), so every review is allowed and
//! every rule is `*`. The spec is not validated (kube-apiserver requires
//! exactly one of resourceAttributes and nonResourceAttributes).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use super::{decode_object, json_response, Req};
use crate::status::ApiError;

/// Why the review allows: the embedded cluster authorizes every request.
const REASON: &str = "the embedded cluster authorizes every request (no RBAC)";

/// Answers a `POST` of a review with the review and its status (201).
pub(super) fn answer(req: &Req<'_>, body: &[u8]) -> Result<Response, ApiError> {
    if !req.sub.is_empty() || !req.name.is_empty() {
        return Err(ApiError::method_not_allowed());
    }
    // kubectl auth can-i sends protobuf, read as any other body.
    let obj = decode_object(&req.content_type(), body)?;
    let mut obj = match crate::typed::round_trip(req.info, &obj) {
        Some(typed) => typed?,
        None => obj,
    };
    obj["apiVersion"] = json!(req.info.api_version());
    obj["kind"] = json!(req.info.kind);
    if obj.get("metadata").is_none_or(Value::is_null) {
        obj["metadata"] = json!({});
    }
    obj["metadata"]["creationTimestamp"] = Value::Null;
    obj["status"] = match req.info.kind.as_str() {
        "SelfSubjectRulesReview" => json!({
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
            "incomplete": false,
        }),
        _ => json!({"allowed": true, "reason": REASON}),
    };
    Ok(json_response(StatusCode::CREATED, &obj))
}
