//! `pods/<name>/log`: the simulated containers write nothing, so a running or
//! terminated container has an empty log; the errors are upstream's.

use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use serde_json::Value;

use super::super::status::ApiError;
use super::Req;

/// Picks the container a log request addresses, or the upstream error.
pub(super) fn pick_container(pod: &Value, requested: Option<&str>) -> Result<String, ApiError> {
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let names: Vec<&str> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(
            pod["spec"]["initContainers"]
                .as_array()
                .into_iter()
                .flatten(),
        )
        .filter_map(|c| c["name"].as_str())
        .collect();
    match requested {
        Some(c) if names.contains(&c) => Ok(c.to_string()),
        Some(c) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {name}"
        ))),
        None if names.len() == 1 => Ok(names[0].to_string()),
        None => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {name}, choose one of: [{}]",
            names.join(" ")
        ))),
    }
}

/// Whether the container has started (its log exists), or the upstream error.
pub(super) fn check_started(pod: &Value, container: &str) -> Result<(), ApiError> {
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let status = pod["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(
            pod["status"]["initContainerStatuses"]
                .as_array()
                .into_iter()
                .flatten(),
        )
        .find(|s| s["name"] == container);
    let state = status.map(|s| &s["state"]);
    let waiting = match state {
        Some(st) if st.get("running").is_some() || st.get("terminated").is_some() => return Ok(()),
        Some(st) => st["waiting"]["reason"]
            .as_str()
            .unwrap_or("ContainerCreating"),
        None => "ContainerCreating",
    };
    Err(ApiError::bad_request(format!(
        "container {container:?} in pod {name:?} is waiting to start: {waiting}"
    )))
}

/// `GET pods/<name>/log`.
pub(super) fn get(req: &Req<'_>, pod: &Value) -> Result<Response, ApiError> {
    let container = pick_container(pod, req.params.get("container").map(String::as_str))?;
    check_started(pod, &container)?;
    Ok((StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], "").into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn container_choice_and_waiting_errors() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
            "status": {"containerStatuses": [{"name": "a", "state": {"running": {}}}, {"name": "b", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}});
        assert_eq!(
            pick_container(&pod, None).unwrap_err().message,
            "a container name must be specified for pod p, choose one of: [a b]"
        );
        assert!(check_started(&pod, "a").is_ok());
        assert_eq!(
            check_started(&pod, "b").unwrap_err().message,
            "container \"b\" in pod \"p\" is waiting to start: ImagePullBackOff"
        );
        assert_eq!(pick_container(&pod, Some("z")).unwrap_err().code, 400);
    }
}
