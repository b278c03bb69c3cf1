//! Events written the way upstream's statefulset controller writes them:
//! core/v1 Events from the component `statefulset-controller`, with the
//! reasons and message texts of `stateful_pod_control.go`.

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::api::{Api, PostParams};
use kube::Client;

/// The component name upstream's controller reports as the event source.
pub(crate) const COMPONENT: &str = "statefulset-controller";

/// Whether an event reports normal progress or a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventType {
    /// `Normal`.
    Normal,
    /// `Warning`.
    Warning,
}

impl EventType {
    /// The API text of the type.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// The object an event is about.
#[derive(Clone, Debug)]
pub(crate) struct Regarding {
    /// apiVersion of the set (apps/v1 or a vendor's group/version).
    pub api_version: String,
    /// Kind of the set.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID.
    pub uid: String,
    /// resourceVersion at the time of the event.
    pub resource_version: Option<String>,
}

/// Message of a successful pod/claim operation, as upstream words it:
/// `create Pod web-0 in StatefulSet web successful`.
pub(crate) fn success_message(
    verb: &str,
    object_kind: &str,
    object: &str,
    set_kind: &str,
    set: &str,
) -> String {
    format!("{verb} {object_kind} {object} in {set_kind} {set} successful")
}

/// Message of a failed pod/claim operation, as upstream words it:
/// `create Pod web-0 in StatefulSet web failed error: <err>`.
pub(crate) fn failure_message(
    verb: &str,
    object_kind: &str,
    object: &str,
    set_kind: &str,
    set: &str,
    err: &str,
) -> String {
    format!("{verb} {object_kind} {object} in {set_kind} {set} failed error: {err}")
}

/// An error as client-go prints it in event messages: an apiserver refusal
/// is its Status message alone.
pub(crate) fn error_text(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) if !status.message.is_empty() => status.message.clone(),
        other => other.to_string(),
    }
}

/// Message of a claim creation, as upstream words it:
/// `create Claim www-web-0 Pod web-0 in StatefulSet web success`.
pub(crate) fn claim_message(
    claim: &str,
    pod: &str,
    set_kind: &str,
    set: &str,
    err: Option<&str>,
) -> String {
    match err {
        None => format!("create Claim {claim} Pod {pod} in {set_kind} {set} success"),
        Some(e) => {
            format!("create Claim {claim} for Pod {pod} in {set_kind} {set} failed error: {e}")
        }
    }
}

/// Reason for the outcome of an operation: `SuccessfulCreate`, `FailedDelete`...
pub(crate) fn reason(verb: &str, ok: bool) -> String {
    let mut v = verb.to_string();
    if let Some(first) = v.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    if ok {
        format!("Successful{v}")
    } else {
        format!("Failed{v}")
    }
}

/// Builds the core/v1 Event object (pure, for tests).
pub(crate) fn build(
    regarding: &Regarding,
    type_: EventType,
    reason: &str,
    message: &str,
    now: Time,
) -> Event {
    let suffix: u64 = rand::random();
    Event {
        metadata: ObjectMeta {
            name: Some(format!("{}.{:016x}", regarding.name, suffix)),
            namespace: Some(regarding.namespace.clone()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some(regarding.api_version.clone()),
            kind: Some(regarding.kind.clone()),
            name: Some(regarding.name.clone()),
            namespace: Some(regarding.namespace.clone()),
            uid: Some(regarding.uid.clone()),
            resource_version: regarding.resource_version.clone(),
            ..ObjectReference::default()
        },
        reason: Some(reason.to_string()),
        message: Some(message.to_string()),
        type_: Some(type_.as_str().to_string()),
        source: Some(EventSource {
            component: Some(COMPONENT.to_string()),
            host: None,
        }),
        first_timestamp: Some(now.clone()),
        last_timestamp: Some(now),
        count: Some(1),
        reporting_component: Some(COMPONENT.to_string()),
        reporting_instance: Some(COMPONENT.to_string()),
        ..Event::default()
    }
}

/// Writes an event. Failures to record an event are logged, never fatal,
/// as with client-go's recorder.
pub(crate) async fn record(
    client: &Client,
    regarding: &Regarding,
    type_: EventType,
    reason: &str,
    message: &str,
) {
    let event = build(
        regarding,
        type_,
        reason,
        message,
        Time(jiff::Timestamp::now()),
    );
    let api: Api<Event> = Api::namespaced(client.clone(), &regarding.namespace);
    // client-go's recorder tries an event up to 12 times
    // (tools/record/event.go, maxTriesPerEvent) with 10 s between tries, and
    // only while the apiserver cannot be reached; the bundled controller
    // tries as often and on the same errors, 100 ms apart, inline.
    for attempt in 1..=MAX_TRIES {
        match api.create(&PostParams::default(), &event).await {
            Ok(_) => return,
            Err(err) if attempt == MAX_TRIES || !retriable(&err) => {
                tracing::warn!(%err, reason, "could not record event");
                return;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

/// Tries per event, as client-go's recorder.
const MAX_TRIES: u32 = 12;

/// Errors worth another try, as client-go's `recordEvent` decides: an
/// apiserver's answer (a `StatusError`, whatever its code) is final ("Server
/// rejected event ... (will not retry!)"); the apiserver not answering, a
/// transport error, is tried again.
fn retriable(err: &kube::Error) -> bool {
    !matches!(err, kube::Error::Api(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_apiserver_refusal_is_quoted_by_its_message() {
        let status =
            kube::core::Status::failure("Precondition failed: UID in precondition: a", "Conflict")
                .with_code(409);
        let err = kube::Error::Api(Box::new(status));
        assert_eq!(
            error_text(&err),
            "Precondition failed: UID in precondition: a"
        );
    }

    #[test]
    fn only_an_unanswered_request_is_tried_again() {
        for code in [409, 429, 500, 503] {
            let status = kube::core::Status::failure("refused", "InternalError").with_code(code);
            assert!(!retriable(&kube::Error::Api(Box::new(status))), "{code}");
        }
        let unreachable = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert!(retriable(&kube::Error::ReadEvents(unreachable)));
    }

    #[test]
    fn messages_match_upstream_wording() {
        assert_eq!(
            success_message("create", "Pod", "web-0", "StatefulSet", "web"),
            "create Pod web-0 in StatefulSet web successful"
        );
        assert_eq!(
            failure_message("delete", "Pod", "web-1", "StatefulSet", "web", "boom"),
            "delete Pod web-1 in StatefulSet web failed error: boom"
        );
        assert_eq!(
            claim_message("www-web-0", "web-0", "StatefulSet", "web", None),
            "create Claim www-web-0 Pod web-0 in StatefulSet web success"
        );
        assert_eq!(reason("create", true), "SuccessfulCreate");
        assert_eq!(reason("delete", false), "FailedDelete");
    }
}
