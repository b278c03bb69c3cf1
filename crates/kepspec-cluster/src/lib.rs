//! The embedded Kubernetes API server: an in-process, loopback-only
//! apiserver with a JSON object store, watches, patches, garbage collection
//! and discovery, plus the node simulator that runs against it as a client.
//!
//! Layout: [`store`] (objects, one resourceVersion counter, the event log
//! watches resume from and older states are rebuilt from),
//! [`objects`]/[`update`]/[`delete`] (verb semantics shared by HTTP and the
//! in-process controllers), [`patch`], [`gc`] (ownerReference cascading and
//! namespace lifecycle), [`api`] (HTTP: routing, bearer-token check, the
//! [`faults`] hook, watches, Tables), [`stale`] (a client served a lagging
//! cache's view), [`discovery`], [`status`] (upstream-shaped `Status`
//! errors).
//!
//! Known differences from kube-apiserver:
//! - plain HTTP on 127.0.0.1 only; one bearer token (also accepted as a
//!   `/t/<token>` path prefix, because kubectl sends no kubeconfig
//!   credentials to plain-http servers); no RBAC, no impersonation;
//! - protobuf ([`proto`]) only for the built-in kinds of the served groups
//!   (none for CustomResourceDefinitions); no CBOR;
//! - no OpenAPI defaulting: defaults and validation come from admission for
//!   StatefulSets and Pods only; built-in kinds are decoded into their typed
//!   form ([`typed`]: wrong types are a 400, unknown fields are found and
//!   dropped at any depth); custom resources are pruned and type-checked
//!   against their structural schema ([`structural`]), without enums,
//!   bounds, CEL rules or defaults;
//! - lists are served from the latest state (no snapshot for continue
//!   tokens; `resourceVersionMatch=Exact` is not honoured) unless a
//!   [`stale`] view is installed for the client; watches resume from a
//!   bounded in-memory event window (`watch_window`, 410 Gone beyond it)
//!   shared by all types;
//! - strategic merge patch uses the patch-merge keys of the common built-in
//!   list fields by name (not a full schema); `$setElementOrder` and
//!   `$retainKeys` are ignored; server-side apply and managedFields follow
//!   the field manager with a field-name schema ([`managed`]);
//! - OpenAPI: only a v3 index with the operations and parameters (no
//!   schemas), /openapi/v2 is 404: `kubectl explain` does not work;
//!   discovery is the legacy (unaggregated) form;
//! - Tables for `kubectl get` cover the built-in types listed in
//!   `api/table.rs`, other types print NAME and AGE;
//! - `pods/log` serves an empty log once a container has started (the
//!   simulated containers print nothing); no `exec`, `attach`,
//!   `portforward`, `eviction`, `ephemeralcontainers`; no root-CA
//!   ConfigMap is created per namespace; Endpoints, EndpointSlices and
//!   the workload kinds are stored, with no controller acting on them;
//! - the garbage collector and namespace controller run in-process and act
//!   at once on a change that can give them work given what their last
//!   pass found ([`gc::matters`]), at most every 25 ms in a burst
//!   (upstream's run with informer delays).

#![warn(unreachable_pub)]

mod admission;
mod api;
mod bootstrap;
mod convert;
mod defaults;
mod delete;
mod discovery;
pub mod faults;
mod fields;
mod gc;
mod managed;
mod meta;
mod nodes;
mod objects;
mod openapi;
mod patch;
mod proto;
mod rbac;
mod resources;
mod selector;
pub mod stale;
mod status;
mod storage_class;
mod storage_protection;
mod store;
mod structural;
mod typed;
mod update;

pub use admission::ApiGates;
pub use nodes::{NodeSimConfig, NodeSpec};
pub use patch::apply_strategic_merge_patch;
pub use store::Gr;

/// What a client checks against before it sends an object: the built-in
/// resources this apiserver serves and how it decodes them, and a custom
/// resource's structural schema.
pub mod schema {
    pub use crate::resources::{builtins, ResourceInfo};
    pub use crate::structural::{
        schema_of, type_errors as custom_type_errors, unknown_paths as custom_unknown_paths,
    };
    pub use crate::typed::{round_trip, unknown_paths};
}

/// The Protocol Buffers codec of the built-in kinds, as `kubectl` and
/// client-go speak it.
pub mod protobuf {
    pub use crate::proto::{decode, encode};
}

/// The default StorageClass the cluster starts with, and how one is marked
/// default.
pub mod storage {
    pub use crate::storage_class::{default_class, IS_DEFAULT};
}

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use anyhow::Context;
use serde_json::{json, Value};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use faults::Faults;
pub use store::Store;

/// Settings of an embedded cluster.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// The Kubernetes version the cluster plays: what `/version` answers and
    /// which feature gates exist (see [`kepspec_core::gating::GATES`]).
    pub version: kepspec_core::Version,
    /// Apiserver feature gates.
    pub gates: admission::ApiGates,
    /// Node simulator settings.
    pub nodes: nodes::NodeSimConfig,
    /// Bearer token clients must present (`None` = random).
    pub token: Option<String>,
    /// Events kept for watch resumption; resuming from an older resourceVersion gets 410 Gone.
    pub watch_window: usize,
    /// Interval of BOOKMARK events on watches that allow them.
    pub bookmark_interval: Duration,
    /// Run the node simulator (scheduler, kubelets, volume binder).
    pub run_nodes: bool,
    /// Requests kept in the fault hook's log.
    pub request_log: usize,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            version: DEFAULT_VERSION,
            gates: admission::ApiGates::default(),
            nodes: nodes::NodeSimConfig::default(),
            token: None,
            watch_window: 10_000,
            bookmark_interval: Duration::from_secs(10),
            run_nodes: true,
            request_log: 10_000,
        }
    }
}

/// The version the embedded cluster plays unless told otherwise: the first
/// release with both KEPs' gates.
pub const DEFAULT_VERSION: kepspec_core::Version = kepspec_core::Version::patch(1, 37, 0);

/// A running embedded cluster.
pub struct EmbeddedCluster {
    addr: SocketAddr,
    token: String,
    state: api::ApiState,
    /// The router the server serves, for clients in this process.
    router: axum::Router,
    cancel: CancellationToken,
    tasks: Vec<JoinHandle<()>>,
}

fn random_token() -> String {
    use rand::Rng;
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..32)
        .map(|_| CHARS[rng.random_range(0..CHARS.len())] as char)
        .collect()
}

/// Creates what every cluster holds from the start (bootstrap.rs, rbac.rs):
/// the four namespaces, the `default/kubernetes` Service with its Endpoints
/// and EndpointSlice naming this server's own address, the default
/// StorageClass, and the bootstrap RBAC roles and bindings.
fn seed(store: &Store, addr: SocketAddr) -> anyhow::Result<()> {
    let create = |group: &str, plural: &str, ns: &str, obj: Value| -> anyhow::Result<()> {
        let info = resources::find(store, group, "v1", plural)
            .with_context(|| format!("{plural} resource"))?;
        let name = obj["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        store
            .transact(|t| objects::create_in(t, &info, ns, obj, None, false))
            .map_err(|e| anyhow::anyhow!("seeding {plural} {name}: {e}"))?;
        Ok(())
    };
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}});
        create("", "namespaces", "", obj)?;
    }
    let port = addr.port();
    create(
        "",
        "services",
        "default",
        bootstrap::kubernetes_service(port),
    )?;
    create(
        "",
        "endpoints",
        "default",
        bootstrap::kubernetes_endpoints(addr),
    )?;
    create(
        "discovery.k8s.io",
        "endpointslices",
        "default",
        bootstrap::kubernetes_endpoint_slice(addr),
    )?;
    create(
        "storage.k8s.io",
        "storageclasses",
        "",
        storage_class::kind_default(),
    )?;
    for role in rbac::cluster_roles() {
        create("rbac.authorization.k8s.io", "clusterroles", "", role)?;
    }
    for binding in rbac::cluster_role_bindings() {
        create(
            "rbac.authorization.k8s.io",
            "clusterrolebindings",
            "",
            binding,
        )?;
    }
    Ok(())
}

impl EmbeddedCluster {
    /// Starts the server on 127.0.0.1 (random port), the garbage collector and
    /// (unless disabled) the node simulator.
    pub async fn start(cfg: ClusterConfig) -> anyhow::Result<Self> {
        let store = Store::new(cfg.watch_window);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .context("binding 127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        seed(&store, addr)?;
        let token = cfg.token.clone().unwrap_or_else(random_token);
        let cancel = CancellationToken::new();
        let state = api::ApiState {
            store: store.clone(),
            faults: Faults::new(cfg.request_log),
            gates: Arc::new(RwLock::new(cfg.gates.clone())),
            version: cfg.version,
            token: Arc::from(token.as_str()),
            bookmark_interval: cfg.bookmark_interval,
            address: Arc::from(addr.to_string().as_str()),
            shutdown: cancel.clone(),
        };
        let router = api::router(state.clone());
        let app = router.clone();
        let server_cancel = cancel.clone();
        let mut tasks = vec![tokio::spawn(async move {
            let serve = axum::serve(listener, app)
                .with_graceful_shutdown(async move { server_cancel.cancelled().await });
            if let Err(e) = serve.await {
                tracing::error!("embedded apiserver stopped: {e}");
            }
        })];
        tasks.push(tokio::spawn(gc::run(
            store.clone(),
            state.faults.clone(),
            cancel.clone(),
        )));
        let cluster = EmbeddedCluster {
            addr,
            token,
            state,
            router,
            cancel: cancel.clone(),
            tasks,
        };
        if cfg.run_nodes {
            let client = cluster.client_in_process(&cluster.client_config())?;
            let node_cfg = cfg.nodes.clone();
            let node_cancel = cancel.child_token();
            let mut cluster = cluster;
            cluster.tasks.push(tokio::spawn(async move {
                if let Err(e) = nodes::run(client, node_cfg, node_cancel).await {
                    tracing::error!("node simulator stopped: {e:#}");
                }
            }));
            return Ok(cluster);
        }
        Ok(cluster)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bearer token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// A kubeconfig whose cluster, user and context are all named `kepspec-embedded`.
    /// The server URL carries the token as a `/t/<token>` path prefix because
    /// kubectl sends no kubeconfig credentials to plain-http servers; the user
    /// entry carries it too, for clients that do.
    pub fn kubeconfig_yaml(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: kepspec-embedded\n  cluster:\n    server: {url}/t/{token}\nusers:\n- name: kepspec-embedded\n  user:\n    token: {token}\ncontexts:\n- name: kepspec-embedded\n  context:\n    cluster: kepspec-embedded\n    user: kepspec-embedded\n    namespace: default\ncurrent-context: kepspec-embedded\npreferences: {{}}\n",
            url = self.url(),
            token = self.token
        )
    }

    /// Writes [`Self::kubeconfig_yaml`] to `path`, readable by its owner
    /// only (it holds the token), as kubectl and kind write theirs.
    pub fn write_kubeconfig(&self, path: &std::path::Path) -> anyhow::Result<()> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .with_context(|| format!("writing kubeconfig {}", path.display()))?;
        // An existing file keeps its mode on open: narrow it too.
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .with_context(|| format!("restricting kubeconfig {}", path.display()))?;
        file.write_all(self.kubeconfig_yaml().as_bytes())
            .with_context(|| format!("writing kubeconfig {}", path.display()))
    }

    /// A kube client configuration for this cluster.
    pub fn client_config(&self) -> kube::Config {
        let uri: http::Uri = match self.url().parse() {
            Ok(u) => u,
            Err(_) => http::Uri::from_static("http://127.0.0.1"),
        };
        let mut c = kube::Config::new(uri);
        c.default_namespace = "default".to_string();
        c.auth_info.token = Some(self.token.clone().into());
        c.read_timeout = None;
        // The server speaks plain HTTP on loopback: no certificate
        // authority to trust. Naming none (instead of leaving it unset)
        // spares each client built from this configuration a read of the
        // system's trust store, which kube-client otherwise loads.
        c.root_cert = Some(Vec::new());
        c
    }

    /// A kube client for this cluster.
    pub async fn client(&self) -> anyhow::Result<kube::Client> {
        kube::Client::try_from(self.client_config()).context("building kube client")
    }

    /// A kube client that reaches this apiserver within the process: its
    /// requests go through kube-rs's own middleware for `config` (base URI,
    /// retries of 429/503/504, credentials, extra headers such as the user
    /// agent) and then straight to the router the server serves, with no
    /// HTTP/1 framing and no socket between. What the apiserver decides is
    /// the same; what it costs is less. A client in another process
    /// (kubectl, a controller under test) uses [`Self::url`].
    pub fn client_in_process(&self, config: &kube::Config) -> anyhow::Result<kube::Client> {
        use kube::client::ConfigExt as _;
        let router = tower::ServiceExt::<http::Request<kube::client::Body>>::map_err(
            self.router.clone(),
            |never: std::convert::Infallible| -> tower::BoxError { match never {} },
        );
        let retry = config.default_retry.then(|| {
            tower::retry::RetryLayer::new(kube::client::retry::RetryPolicy::server_retry())
        });
        let service = tower::ServiceBuilder::new()
            .layer(config.base_uri_layer())
            .option_layer(retry)
            .option_layer(config.auth_layer().context("credentials")?)
            .layer(config.extra_headers_layer().context("headers")?)
            .service(router);
        Ok(kube::Client::new(service, config.default_namespace.clone()))
    }

    /// The object store (cheap clone handle).
    pub fn store(&self) -> Store {
        self.state.store.clone()
    }

    /// The request log and fault rules every request passes through.
    pub fn faults(&self) -> Faults {
        self.state.faults.clone()
    }

    /// Replaces the admission gates, as an apiserver restart with new flags
    /// would (stored objects are kept).
    pub async fn set_gates(&self, gates: admission::ApiGates) {
        match self.state.gates.write() {
            Ok(mut g) => *g = gates,
            Err(p) => *p.into_inner() = gates,
        }
    }

    /// Stops the server, the collector and the node simulator.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        for t in self.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
    }
}
