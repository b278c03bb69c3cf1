//! Request routing: URL paths and methods to apiserver request info.

/// A request for a resource (as opposed to discovery and other non-resource paths).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ResourcePath {
    /// API group ("" for core).
    pub group: String,
    /// API version.
    pub version: String,
    /// Plural resource name.
    pub plural: String,
    /// Namespace, if the path has one.
    pub namespace: Option<String>,
    /// Object name, if the path has one.
    pub name: Option<String>,
    /// Subresource, if the path has one.
    pub subresource: Option<String>,
    /// The legacy `/watch/` path prefix was used.
    pub watch_prefix: bool,
}

/// What a path addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// `/version`
    Version,
    /// `/metrics` (the feature-gate metric).
    Metrics,
    /// `/healthz`, `/livez`, `/readyz` (and their sub-checks)
    Health,
    /// `/api`
    CoreVersions,
    /// `/apis`
    Groups,
    /// `/apis/<group>`
    Group(String),
    /// `/api/v1` or `/apis/<group>/<version>`
    ResourceList(String, String),
    /// `/openapi/v2`
    OpenApiV2,
    /// `/openapi/v3`
    OpenApiV3Index,
    /// `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`
    OpenApiV3(String, String),
    /// A resource request.
    Resource(ResourcePath),
    /// Nothing served here.
    Unknown,
}

fn resource_tail(group: &str, version: &str, rest: &[&str]) -> Route {
    let mut rest = rest;
    let mut watch_prefix = false;
    if rest.first() == Some(&"watch") {
        watch_prefix = true;
        rest = &rest[1..];
    }
    let mut p = ResourcePath {
        group: group.to_string(),
        version: version.to_string(),
        watch_prefix,
        ..Default::default()
    };
    let owned = |s: &&str| s.to_string();
    match rest {
        [] => return Route::Unknown,
        ["namespaces", ns, plural, tail @ ..]
            if !(tail.is_empty() && (*plural == "status" || *plural == "finalize")) =>
        {
            p.namespace = Some(ns.to_string());
            p.plural = plural.to_string();
            p.name = tail.first().map(owned);
            p.subresource = tail.get(1).map(owned);
            if tail.len() > 2 {
                return Route::Unknown;
            }
        }
        [plural, tail @ ..] => {
            p.plural = plural.to_string();
            p.name = tail.first().map(owned);
            p.subresource = tail.get(1).map(owned);
            if tail.len() > 2 {
                return Route::Unknown;
            }
        }
    }
    if p.plural.is_empty() || p.name.as_deref() == Some("") || p.subresource.as_deref() == Some("")
    {
        return Route::Unknown;
    }
    Route::Resource(p)
}

/// Parses a request path (without query).
pub(crate) fn route(path: &str) -> Route {
    let trimmed = path.trim_end_matches('/');
    let segs: Vec<&str> = trimmed.split('/').skip(1).collect();
    match segs.as_slice() {
        ["version"] => Route::Version,
        ["metrics"] => Route::Metrics,
        ["healthz" | "livez" | "readyz", ..] => Route::Health,
        ["api"] => Route::CoreVersions,
        ["api", v] => Route::ResourceList(String::new(), v.to_string()),
        ["api", v, rest @ ..] => resource_tail("", v, rest),
        ["apis"] => Route::Groups,
        ["apis", g] => Route::Group(g.to_string()),
        ["apis", g, v] => Route::ResourceList(g.to_string(), v.to_string()),
        ["apis", g, v, rest @ ..] => resource_tail(g, v, rest),
        ["openapi", "v2"] => Route::OpenApiV2,
        ["openapi", "v3"] => Route::OpenApiV3Index,
        ["openapi", "v3", "api", v] => Route::OpenApiV3(String::new(), v.to_string()),
        ["openapi", "v3", "apis", g, v] => Route::OpenApiV3(g.to_string(), v.to_string()),
        _ => Route::Unknown,
    }
}

/// The apiserver verb of a resource request.
pub(super) fn verb(
    method: &http::Method,
    p: &ResourcePath,
    watch_param: bool,
) -> Option<&'static str> {
    use http::Method;
    let named = p.name.is_some();
    Some(match *method {
        Method::GET if p.subresource.is_none() && (p.watch_prefix || watch_param) => "watch",
        Method::GET if named => "get",
        Method::GET => "list",
        Method::POST if !named || p.subresource.is_some() => "create",
        Method::PUT if named => "update",
        Method::PATCH if named => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(path: &str) -> ResourcePath {
        match route(path) {
            Route::Resource(p) => p,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn namespaced_and_cluster_paths() {
        let p = res("/apis/apps/v1/namespaces/ns1/statefulsets/web/scale");
        assert_eq!(
            (p.group.as_str(), p.plural.as_str()),
            ("apps", "statefulsets")
        );
        assert_eq!(p.namespace.as_deref(), Some("ns1"));
        assert_eq!(p.name.as_deref(), Some("web"));
        assert_eq!(p.subresource.as_deref(), Some("scale"));
        let p = res("/api/v1/namespaces/ns1");
        assert_eq!(
            (p.plural.as_str(), p.name.as_deref()),
            ("namespaces", Some("ns1"))
        );
        let p = res("/api/v1/namespaces/ns1/status");
        assert_eq!(p.subresource.as_deref(), Some("status"));
        assert_eq!(p.namespace, None);
        let p = res("/api/v1/pods");
        assert_eq!(
            (p.plural.as_str(), p.name.clone(), p.namespace.clone()),
            ("pods", None, None)
        );
        let p = res("/api/v1/watch/namespaces/a/pods");
        assert!(p.watch_prefix);
        assert_eq!(p.namespace.as_deref(), Some("a"));
    }

    #[test]
    fn non_resource_paths() {
        assert_eq!(route("/version"), Route::Version);
        assert_eq!(
            route("/apis/apps/v1"),
            Route::ResourceList("apps".into(), "v1".into())
        );
        assert_eq!(
            route("/api/v1/"),
            Route::ResourceList(String::new(), "v1".into())
        );
        assert_eq!(
            route("/openapi/v3/apis/apps/v1"),
            Route::OpenApiV3("apps".into(), "v1".into())
        );
        assert_eq!(route("/nope"), Route::Unknown);
        assert_eq!(route("/api/v1/namespaces/a/pods/b/c/d"), Route::Unknown);
    }

    #[test]
    fn verbs() {
        let named = res("/api/v1/namespaces/a/pods/b");
        let coll = res("/api/v1/namespaces/a/pods");
        assert_eq!(verb(&http::Method::GET, &coll, true), Some("watch"));
        assert_eq!(verb(&http::Method::GET, &named, true), Some("watch"));
        assert_eq!(verb(&http::Method::GET, &named, false), Some("get"));
        assert_eq!(verb(&http::Method::GET, &coll, false), Some("list"));
        assert_eq!(
            verb(&http::Method::DELETE, &coll, false),
            Some("deletecollection")
        );
        assert_eq!(verb(&http::Method::POST, &named, false), None);
        assert_eq!(verb(&http::Method::PUT, &coll, false), None);
        assert_eq!(verb(&http::Method::PATCH, &named, false), Some("patch"));
    }
}
