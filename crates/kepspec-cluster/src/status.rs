//! `metav1.Status` failure bodies, shaped like the ones kube-apiserver sends.

use serde_json::{json, Map, Value};

/// One entry of `details.causes`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cause {
    /// Machine-readable reason, e.g. `FieldValueInvalid`.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
    /// Field path, e.g. `spec.replicas`.
    pub field: String,
}

/// The fields of a failed API call's `Status` body.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusError {
    /// HTTP status code.
    pub code: u16,
    /// `StatusReason`, e.g. `NotFound`.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
    /// `details.name`.
    pub name: Option<String>,
    /// `details.group`.
    pub group: Option<String>,
    /// `details.kind` (the plural resource for most errors, as upstream).
    pub kind: Option<String>,
    /// `details.uid`.
    pub uid: Option<String>,
    /// `details.causes`.
    pub causes: Vec<Cause>,
    /// `details.retryAfterSeconds`.
    pub retry_after_seconds: Option<u64>,
}

/// A failed API call: HTTP code plus the `Status` body it is reported with
/// (boxed, so `Result<_, ApiError>` stays small).
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError(Box<StatusError>);

impl std::ops::Deref for ApiError {
    type Target = StatusError;
    fn deref(&self) -> &StatusError {
        &self.0
    }
}

impl std::ops::DerefMut for ApiError {
    fn deref_mut(&mut self) -> &mut StatusError {
        &mut self.0
    }
}

/// `resource.group` as upstream prints it in messages (`statefulsets.apps`, `pods`).
pub(crate) fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

impl ApiError {
    /// A bare error with a code, reason and message.
    pub fn new(code: u16, reason: &str, message: impl Into<String>) -> Self {
        ApiError(Box::new(StatusError {
            code,
            reason: reason.to_string(),
            message: message.into(),
            name: None,
            group: None,
            kind: None,
            uid: None,
            causes: Vec::new(),
            retry_after_seconds: None,
        }))
    }

    fn with_details(mut self, group: &str, resource: &str, name: &str) -> Self {
        self.name = Some(name.to_string());
        self.group = Some(group.to_string());
        self.kind = Some(resource.to_string());
        self
    }

    /// 404 `pods "x" not found`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        let msg = format!("{} {name:?} not found", qualified(resource, group));
        ApiError::new(404, "NotFound", msg).with_details(group, resource, name)
    }

    /// 409 `statefulsets.apps "web" already exists`.
    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        let msg = format!("{} {name:?} already exists", qualified(resource, group));
        ApiError::new(409, "AlreadyExists", msg).with_details(group, resource, name)
    }

    /// 409 Conflict on a stale resourceVersion.
    pub fn conflict(group: &str, resource: &str, name: &str) -> Self {
        Self::conflict_because(
            group,
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 409 Conflict with a custom explanation.
    pub fn conflict_because(group: &str, resource: &str, name: &str, why: &str) -> Self {
        let msg = format!(
            "Operation cannot be fulfilled on {} {name:?}: {why}",
            qualified(resource, group)
        );
        ApiError::new(409, "Conflict", msg).with_details(group, resource, name)
    }

    /// 422 Invalid; `kind` is the object kind (`StatefulSet`).
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<Cause>) -> Self {
        let parts: Vec<String> = causes
            .iter()
            .map(|c| {
                if c.field.is_empty() {
                    c.message.clone()
                } else {
                    format!("{}: {}", c.field, c.message)
                }
            })
            .collect();
        let joined = if parts.len() == 1 {
            parts[0].clone()
        } else {
            format!("[{}]", parts.join(", "))
        };
        let msg = format!("{} {name:?} is invalid: {joined}", qualified(kind, group));
        let mut e = ApiError::new(422, "Invalid", msg).with_details(group, kind, name);
        e.causes = causes;
        e
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    /// 405 MethodNotAllowed.
    pub fn method_not_allowed() -> Self {
        ApiError::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
    }

    /// 404 for a path that names no known resource.
    pub fn unknown_path() -> Self {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    }

    /// 415 for a body type the endpoint cannot decode; `accepted` as upstream lists them.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        ApiError::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    /// 413 for a body over the size limit.
    pub fn too_large() -> Self {
        ApiError::new(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: limit is 3145728",
        )
    }

    /// 401 without valid credentials.
    pub fn unauthorized() -> Self {
        ApiError::new(401, "Unauthorized", "Unauthorized")
    }

    /// 410 Expired for a watch or continue token that is too old.
    pub fn gone(message: impl Into<String>) -> Self {
        ApiError::new(410, "Expired", message)
    }

    /// 422 for a patch that decodes but cannot be applied (upstream's generic
    /// server response, the patch error as an `UnexpectedServerResponse` cause).
    pub fn patch_not_applicable(err: impl Into<String>) -> Self {
        let mut e = ApiError::new(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        );
        e.causes = vec![Cause {
            reason: "UnexpectedServerResponse".into(),
            message: err.into(),
            field: String::new(),
        }];
        e
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(
            500,
            "InternalError",
            format!("Internal error occurred: {}", message.into()),
        )
    }

    /// The `Status` object for this error.
    pub fn to_status(&self) -> Value {
        let mut details = Map::new();
        if let Some(n) = &self.name {
            details.insert("name".into(), json!(n));
        }
        if let Some(g) = &self.group {
            details.insert("group".into(), json!(g));
        }
        if let Some(k) = &self.kind {
            details.insert("kind".into(), json!(k));
        }
        if let Some(u) = &self.uid {
            details.insert("uid".into(), json!(u));
        }
        if !self.causes.is_empty() {
            let causes: Vec<Value> = self
                .causes
                .iter()
                .map(|c| {
                    let mut m = Map::new();
                    for (k, v) in [
                        ("reason", &c.reason),
                        ("message", &c.message),
                        ("field", &c.field),
                    ] {
                        if !v.is_empty() {
                            m.insert(k.into(), json!(v));
                        }
                    }
                    Value::Object(m)
                })
                .collect();
            details.insert("causes".into(), Value::Array(causes));
        }
        if let Some(r) = self.retry_after_seconds {
            details.insert("retryAfterSeconds".into(), json!(r));
        }
        let mut status = Map::new();
        status.insert("kind".into(), json!("Status"));
        status.insert("apiVersion".into(), json!("v1"));
        status.insert("metadata".into(), json!({}));
        status.insert("status".into(), json!("Failure"));
        status.insert("message".into(), json!(self.message));
        if !self.reason.is_empty() {
            // metav1.Status's reason is omitempty (StatusReasonUnknown).
            status.insert("reason".into(), json!(self.reason));
        }
        if !details.is_empty() {
            status.insert("details".into(), Value::Object(details));
        }
        status.insert("code".into(), json!(self.code));
        Value::Object(status)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

/// The `Status` body of a successful delete of an object that is gone at once
/// (upstream returns the object itself for most resources; this is used where
/// there is no object to return).
pub(crate) fn success_status(group: &str, resource: &str, name: &str, uid: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": name, "group": group, "kind": resource, "uid": uid}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_body_matches_upstream_shape() {
        let s = ApiError::not_found("apps", "statefulsets", "web").to_status();
        assert_eq!(
            s,
            json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                "message":"statefulsets.apps \"web\" not found","reason":"NotFound",
                "details":{"name":"web","group":"apps","kind":"statefulsets"},"code":404})
        );
    }

    #[test]
    fn conflict_message_matches_upstream() {
        let e = ApiError::conflict("apps", "statefulsets", "web");
        assert_eq!(e.message, "Operation cannot be fulfilled on statefulsets.apps \"web\": the object has been modified; please apply your changes to the latest version and try again");
        assert_eq!(e.code, 409);
    }

    #[test]
    fn invalid_joins_causes_in_brackets() {
        let c = |f: &str| Cause {
            reason: "FieldValueInvalid".into(),
            message: "bad".into(),
            field: f.into(),
        };
        let one = ApiError::invalid("apps", "StatefulSet", "web", vec![c("spec.a")]);
        assert_eq!(
            one.message,
            "StatefulSet.apps \"web\" is invalid: spec.a: bad"
        );
        let two = ApiError::invalid("apps", "StatefulSet", "web", vec![c("spec.a"), c("spec.b")]);
        assert_eq!(
            two.message,
            "StatefulSet.apps \"web\" is invalid: [spec.a: bad, spec.b: bad]"
        );
        assert_eq!(two.to_status()["details"]["causes"][1]["field"], "spec.b");
    }
}
