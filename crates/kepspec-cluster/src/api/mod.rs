//! The HTTP front end: authentication, the fault hook, routing, body decoding.

mod logs;
mod partial;
mod path;
mod protobuf;
mod read;
mod review;
pub(crate) mod sub;
mod table;
mod table_custom;
mod table_pod;
mod watch;
mod write;
pub(crate) mod yaml;

use kepspec_core::Lookup as _;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http::{header, HeaderMap, Method, StatusCode};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::admission::ApiGates;
use super::discovery;
use super::faults::{Faults, RequestRecord};
use super::managed::{Manager, Operation};
use super::resources::{self, ResourceInfo};
use super::status::ApiError;
use super::store::Store;

pub(crate) use path::{ResourcePath, Route};

/// The request body limit (upstream's 3 MiB).
pub(crate) const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Shared server state.
#[derive(Clone)]
pub(crate) struct ApiState {
    /// Object storage.
    pub store: Store,
    /// Request log and fault rules.
    pub faults: Faults,
    /// Admission feature gates (swappable at runtime).
    pub gates: Arc<RwLock<ApiGates>>,
    /// The Kubernetes version the server plays.
    pub version: kepspec_core::Version,
    /// The bearer token clients must present.
    pub token: Arc<str>,
    /// How often watches with `allowWatchBookmarks` get a BOOKMARK.
    pub bookmark_interval: Duration,
    /// `host:port` the server listens on.
    pub address: Arc<str>,
    /// Cancelled on shutdown; ends open watches.
    pub shutdown: CancellationToken,
}

impl ApiState {
    /// A copy of the current gates.
    pub(crate) fn gates(&self) -> ApiGates {
        match self.gates.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// Query parameters as a map (last value wins).
pub(crate) type Params = HashMap<String, String>;

/// The axum router serving the whole API.
pub(crate) fn router(state: ApiState) -> Router {
    Router::new().fallback(handle).with_state(state)
}

/// A JSON response.
pub(crate) fn json_response(code: StatusCode, v: &Value) -> Response {
    serialized_response(code, v)
}

/// A JSON response written from anything serializable, with no value tree
/// made first.
pub(crate) fn serialized_response(code: StatusCode, v: &impl serde::Serialize) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    (
        code,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        body,
    )
        .into_response()
}

/// A Status error response.
pub(crate) fn error_response(e: &ApiError) -> Response {
    let code = StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = json_response(code, &e.to_status());
    if let Some(s) = e.retry_after_seconds {
        if let Ok(v) = http::HeaderValue::from_str(&s.to_string()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
    }
    r
}

fn authorized(headers: &HeaderMap, token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| t.trim() == token)
}

fn record_for(
    method: &Method,
    uri: &http::Uri,
    headers: &HeaderMap,
    route: &Route,
    params: &Params,
) -> RequestRecord {
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut r = RequestRecord {
        verb: method.as_str().to_lowercase(),
        path: uri.path().to_string(),
        user_agent,
        ..Default::default()
    };
    if let Route::Resource(p) = route {
        let watch = matches!(params.get("watch").map(String::as_str), Some("true" | "1"));
        r.verb = path::verb(method, p, watch)
            .unwrap_or("unknown")
            .to_string();
        r.group = p.group.clone();
        r.resource = p.plural.clone();
        r.namespace = p.namespace.clone().unwrap_or_default();
        r.name = p.name.clone().unwrap_or_default();
        r.subresource = p.subresource.clone().unwrap_or_default();
        if p.plural == "namespaces" && p.namespace.is_none() {
            r.namespace = r.name.clone();
        }
    }
    r
}

/// Splits a `/t/<token>` credential prefix off a request path. kubectl (client-go)
/// never sends kubeconfig credentials to a plain-http server, so the kubeconfig
/// written for it carries the token in the server URL's path instead.
pub(crate) fn split_token_prefix<'a>(path: &'a str, token: &str) -> Option<&'a str> {
    let rest = path.strip_prefix("/t/")?;
    let (given, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    (given == token).then_some(tail)
}

async fn handle(State(state): State<ApiState>, req: http::Request<Body>) -> Response {
    let (mut parts, body) = req.into_parts();
    let mut by_prefix = false;
    if let Some(tail) = split_token_prefix(parts.uri.path(), &state.token) {
        let pq = match parts.uri.query() {
            Some(q) => format!("{tail}?{q}"),
            None => tail.to_string(),
        };
        if let Ok(u) = pq.parse::<http::Uri>() {
            parts.uri = u;
            by_prefix = true;
        }
    }
    let route = path::route(parts.uri.path());
    let params: Params = Query::<Params>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default();
    let public = matches!(route, Route::Version | Route::Health);
    if !public && !by_prefix && !authorized(&parts.headers, &state.token) {
        return error_response(&ApiError::unauthorized());
    }
    let mut record = record_for(&parts.method, &parts.uri, &parts.headers, &route, &params);
    // A create names its object in the body, not the path: read it first so
    // that rules naming the object ("every time the controller creates pod
    // web-2") can match, as admission would see it.
    let body = if record.verb == "create" && record.name.is_empty() {
        let bytes = match read_body(&parts.headers, body).await {
            Ok(b) => b,
            Err(e) => return error_response(&e),
        };
        record.name = created_name(&bytes).unwrap_or_default();
        Body::from(bytes)
    } else {
        body
    };
    let watch = record.verb == "watch";
    let decision = state.faults.on_request(record);
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    if let Some(e) = decision.fail {
        return error_response(&e);
    }
    let served = std::panic::AssertUnwindSafe(dispatch(
        &state,
        &parts.method,
        &parts.headers,
        route,
        &params,
        body,
    ));
    let resp = match futures::FutureExt::catch_unwind(served).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => error_response(&e),
        Err(_) => error_response(&ApiError::internal("the request handler panicked")),
    };
    // A watch chose its encoding itself; any other JSON answer goes out in
    // protobuf to a client that takes it first.
    if !watch && protobuf::wanted(&parts.headers) {
        protobuf::answer(resp).await
    } else {
        resp
    }
}

async fn dispatch(
    state: &ApiState,
    method: &Method,
    headers: &HeaderMap,
    route: Route,
    params: &Params,
    body: Body,
) -> Result<Response, ApiError> {
    let get_only = |v: Value| {
        if method == Method::GET {
            Ok(json_response(StatusCode::OK, &v))
        } else {
            Err(ApiError::method_not_allowed())
        }
    };
    let all = || resources::all(&state.store);
    let aggregated = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .and_then(discovery::wants_aggregated);
    match route {
        Route::Version => get_only(discovery::version(state.version)),
        Route::Metrics => {
            if method == Method::GET {
                Ok((
                    StatusCode::OK,
                    [(
                        header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    state.gates().metrics(state.version),
                )
                    .into_response())
            } else {
                Err(ApiError::method_not_allowed())
            }
        }
        Route::Health => {
            if method == Method::GET {
                Ok((StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], "ok").into_response())
            } else {
                Err(ApiError::method_not_allowed())
            }
        }
        Route::CoreVersions | Route::Groups if method == Method::GET && aggregated.is_some() => {
            let version = aggregated.unwrap_or("v2");
            let core = matches!(route, Route::CoreVersions);
            let body = discovery::aggregated(&all(), core, version);
            let mut resp = json_response(StatusCode::OK, &body);
            let media = format!(
                "application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"
            );
            if let Ok(v) = header::HeaderValue::from_str(&media) {
                resp.headers_mut().insert(header::CONTENT_TYPE, v);
            }
            resp.headers_mut()
                .insert(header::VARY, header::HeaderValue::from_static("Accept"));
            Ok(resp)
        }
        Route::CoreVersions => get_only(discovery::core_versions(&state.address)),
        Route::Groups => get_only(discovery::group_list(&all())),
        Route::Group(g) => {
            get_only(discovery::group(&all(), &g).ok_or_else(ApiError::unknown_path)?)
        }
        Route::ResourceList(g, v) => {
            get_only(discovery::resource_list(&all(), &g, &v).ok_or_else(ApiError::unknown_path)?)
        }
        Route::OpenApiV2 => Err(ApiError::unknown_path()),
        Route::OpenApiV3Index => get_only(discovery::openapi_v3_index(&all())),
        Route::OpenApiV3(g, v) => {
            get_only(discovery::openapi_v3_doc(&all(), &g, &v).ok_or_else(ApiError::unknown_path)?)
        }
        Route::Unknown => Err(ApiError::unknown_path()),
        Route::Resource(p) => resource(state, method, headers, p, params, body).await,
    }
}

async fn resource(
    state: &ApiState,
    method: &Method,
    headers: &HeaderMap,
    mut p: ResourcePath,
    params: &Params,
    body: Body,
) -> Result<Response, ApiError> {
    let info = resources::find(&state.store, &p.group, &p.version, &p.plural)
        .ok_or_else(ApiError::unknown_path)?;
    if info.plural == "namespaces" && info.group.is_empty() {
        p.namespace = None;
    }
    if !info.namespaced && p.namespace.is_some() {
        return Err(ApiError::unknown_path());
    }
    if info.namespaced && p.namespace.is_none() && p.name.is_some() {
        return Err(ApiError::unknown_path());
    }
    if let Some(sub) = &p.subresource {
        let ok = match sub.as_str() {
            "status" => info.status,
            "scale" => info.scale.is_some(),
            "binding" | "log" | "ephemeralcontainers" => info.binding,
            "finalize" => info.plural == "namespaces" && info.group.is_empty(),
            _ => false,
        };
        if !ok {
            return Err(ApiError::unknown_path());
        }
    }
    let watch = matches!(params.get("watch").map(String::as_str), Some("true" | "1"));
    let verb = path::verb(method, &p, watch).ok_or_else(ApiError::method_not_allowed)?;
    let ns = p.namespace.clone().unwrap_or_default();
    let name = p.name.clone().unwrap_or_default();
    let sub = p.subresource.clone().unwrap_or_default();
    let req = Req {
        state,
        info: &info,
        ns: &ns,
        name: &name,
        sub: &sub,
        params,
        headers,
        all_namespaces: p.namespace.is_none(),
    };
    if info.create_only() {
        return match verb {
            "create" => review::answer(&req, &read_body(headers, body).await?),
            _ => Err(ApiError::method_not_allowed()),
        };
    }
    match verb {
        "get" => read::get(&req),
        "list" => read::list(&req),
        "watch" => watch::watch(&req),
        "create" => write::create(&req, read_body(headers, body).await?).await,
        "update" => write::update(&req, read_body(headers, body).await?).await,
        "patch" => write::patch(&req, read_body(headers, body).await?).await,
        "delete" => write::delete(&req, read_body(headers, body).await?).await,
        "deletecollection" => write::delete_collection(&req, read_body(headers, body).await?).await,
        _ => Err(ApiError::method_not_allowed()),
    }
}

/// One resource request, as the verb handlers see it.
pub(crate) struct Req<'a> {
    /// Server state.
    pub state: &'a ApiState,
    /// The resource.
    pub info: &'a ResourceInfo,
    /// Namespace ("" if none).
    pub ns: &'a str,
    /// Object name ("" if none).
    pub name: &'a str,
    /// Subresource ("" if none).
    pub sub: &'a str,
    /// Query parameters.
    pub params: &'a Params,
    /// Request headers.
    pub headers: &'a HeaderMap,
    /// A collection request without a namespace.
    pub all_namespaces: bool,
}

impl Req<'_> {
    /// `dryRun=All` was requested.
    pub(crate) fn dry_run(&self) -> bool {
        self.params.get("dryRun").is_some_and(|v| v == "All")
    }

    /// The `meta.k8s.io` version when the client asked for metadata only
    /// (and not for a Table).
    pub(crate) fn metadata_only(&self) -> Option<&'static str> {
        if self.table().is_some() {
            return None;
        }
        partial::wants(self.headers)
    }

    /// `Some(includeObject)` when the client asked for a Table.
    pub(crate) fn table(&self) -> Option<String> {
        table::wants_table(self.headers).then(|| {
            self.params
                .get("includeObject")
                .cloned()
                .unwrap_or_else(|| "Metadata".to_string())
        })
    }

    /// The field manager of this request's write.
    pub(crate) fn manager(&self, operation: Operation) -> Manager {
        Manager {
            name: Manager::of_request(
                self.params.get("fieldManager").map(String::as_str),
                self.user_agent(),
            ),
            operation,
            api_version: self.info.api_version(),
            subresource: self.sub.to_string(),
        }
    }

    /// The `User-Agent` header ("" if absent).
    pub(crate) fn user_agent(&self) -> &str {
        self.headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The stale view in force for this client, if its read allows a cache
    /// (see [`super::stale::cacheable_read`]), with the resourceVersion the
    /// answer must be at least as new as.
    pub(crate) fn stale_view(
        &self,
    ) -> Option<(super::faults::RuleId, super::stale::StaleView, u64)> {
        let param = |k: &str| self.params.get(k).map_or("", String::as_str);
        let floor =
            super::stale::cacheable_read(param("resourceVersion"), param("resourceVersionMatch"))?;
        let (id, view) = self
            .state
            .faults
            .stale_view_for(self.user_agent(), &self.info.plural)?;
        Some((id, view, floor))
    }

    /// The Content-Type's media type ("" if absent).
    pub(crate) fn content_type(&self) -> String {
        self.headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.split(';').next().unwrap_or("").trim().to_lowercase())
            .unwrap_or_default()
    }
}

/// `metadata.name` of a JSON or YAML create body, if it has one.
fn created_name(bytes: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(bytes)
        .ok()
        .or_else(|| yaml::parse(bytes).ok())?;
    v.lookup("/metadata/name")?.as_str().map(str::to_string)
}

/// Reads the whole body, enforcing the size limit. An oversized body is
/// still drained (up to a hard cap) so the client reads the 413 instead of a reset.
async fn read_body(_headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    use http_body_util::BodyExt;
    const DRAIN_CAP: usize = 64 * 1024 * 1024;
    let mut body = body;
    let mut buf: Vec<u8> = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(ApiError::bad_request("error reading request body"));
        };
        if let Ok(data) = frame.into_data() {
            total += data.len();
            if total <= MAX_BODY_BYTES {
                buf.extend_from_slice(&data);
            } else if total > DRAIN_CAP {
                break;
            }
        }
    }
    if total > MAX_BODY_BYTES {
        return Err(ApiError::too_large());
    }
    Ok(Bytes::from(buf))
}

/// The version an `Accept` header asks for by its media-type parameters, as
/// kube-apiserver negotiates transformed responses: the first media range
/// whose type `media` accepts and whose parameters say `as=` one of `kinds`,
/// `g=group` and `v=` one of `versions` (in `versions`' order of preference).
pub(crate) fn asked_as(
    accept: &str,
    media: fn(&str) -> bool,
    kinds: &[&str],
    group: &str,
    versions: &[&'static str],
) -> Option<&'static str> {
    accept.split(',').find_map(|range| {
        let params: Vec<&str> = range.split(';').map(str::trim).collect();
        let has = |key: &str, value: &str| {
            params[1..]
                .iter()
                .any(|p| p.strip_prefix(key).and_then(|p| p.strip_prefix('=')) == Some(value))
        };
        let asks = media(params[0]) && has("g", group) && kinds.iter().any(|k| has("as", k));
        if !asks {
            return None;
        }
        versions.iter().copied().find(|v| has("v", v))
    })
}

/// Decodes a create/update/delete body by Content-Type (JSON, YAML or,
/// for the built-in kinds, protobuf). A
/// missing Content-Type is JSON, the first type kube-apiserver serves
/// (`NegotiateInputSerializerForMediaType` in k8s.io/apiserver's
/// endpoints/handlers/negotiation): the official Python client sends its
/// bodies without one.
pub(crate) fn decode_object(content_type: &str, bytes: &[u8]) -> Result<Value, ApiError> {
    let v: Value = match content_type {
        "application/json" | "" => serde_json::from_slice(bytes).map_err(|e| {
            ApiError::bad_request(format!("couldn't get version/kind; json parse error: {e}"))
        })?,
        "application/yaml" | "application/x-yaml" | "text/yaml" => {
            yaml::parse(bytes).map_err(|e| {
                ApiError::bad_request(format!("couldn't get version/kind; yaml parse error: {e}"))
            })?
        }
        crate::proto::MEDIA_TYPE => protobuf::decode_body(bytes)?,
        _ => {
            return Err(ApiError::unsupported_media_type(&[
                "application/json",
                "application/yaml",
                "application/vnd.kubernetes.protobuf",
            ]))
        }
    };
    if !v.is_object() {
        return Err(ApiError::bad_request(
            "couldn't get version/kind; json parse error: the body is not a JSON object",
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_prefix_is_checked_and_stripped() {
        assert_eq!(
            split_token_prefix("/t/abc/api/v1/pods", "abc"),
            Some("/api/v1/pods")
        );
        assert_eq!(split_token_prefix("/t/abc", "abc"), Some("/"));
        assert_eq!(split_token_prefix("/t/abd/api", "abc"), None);
        assert_eq!(split_token_prefix("/api/v1", "abc"), None);
    }
}
