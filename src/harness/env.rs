//! The environment scenarios run in: the cluster, the client, and the
//! implementation under test — the bundled controller started in-process
//! (one replica, or several behind leader election), or whatever already
//! runs in the cluster.
//!
//! A run shares one environment between its scenarios; a scenario tagged
//! `@isolated` gets an embedded cluster and controllers of its own, so it can
//! restart them with other feature gates or inject faults without touching
//! its neighbours.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use kube::Client;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::controller::leader::{Election, LeaseTimings};
use crate::controller::{self, ControllerGates, ControllerOptions};
use crate::profiles::{standin, Profile};
use crate::sim::ApiGates;
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// The user agent prefix of the bundled controller's requests, by which
/// fault rules and request counts tell them from the harness's own.
pub(crate) const CONTROLLER_AGENT: &str = "kepspec-controller";

/// The lease in-process controller replicas campaign for.
pub(crate) const LEASE: (&str, &str) = ("kube-system", "kepspec-statefulset-controller");

/// How to set up an environment.
#[derive(Clone, Debug)]
pub struct EnvironmentOptions {
    /// Start the embedded cluster (true) or use the kubeconfig (false).
    pub embedded: bool,
    /// The Kubernetes version the embedded cluster plays.
    pub kube_version: crate::profiles::Version,
    /// The embedded cluster's apiserver feature gates.
    pub apiserver_gates: ApiGates,
    /// Kubeconfig for an existing cluster (None: the default lookup).
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (None: its current context).
    pub context: Option<String>,
    /// Start the bundled controller in-process.
    pub bundled_controller: bool,
    /// The bundled controller's feature gates.
    pub controller_gates: ControllerGates,
    /// The implementation the bundled controller behaves as.
    pub implementation: crate::controller::Implementation,
    /// Where the embedded cluster writes its kubeconfig.
    pub write_kubeconfig: Option<PathBuf>,
    /// The implementation under test.
    pub profile: Profile,
    /// The project root (for the profile's CRD files).
    pub root: PathBuf,
}

impl Default for EnvironmentOptions {
    fn default() -> Self {
        Self {
            embedded: true,
            kube_version: crate::sim::DEFAULT_VERSION,
            apiserver_gates: ApiGates::default(),
            kubeconfig: None,
            context: None,
            bundled_controller: true,
            controller_gates: ControllerGates::default(),
            implementation: Default::default(),
            write_kubeconfig: None,
            profile: Profile::bundled(),
            root: PathBuf::from("."),
        }
    }
}

/// One in-process controller replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSpec {
    /// Its identity (lease holder name, user agent suffix).
    pub identity: String,
    /// Its feature gates.
    pub gates: ControllerGates,
    /// Whether it campaigns for the lease before acting.
    pub leader_election: bool,
}

struct Replica {
    spec: ReplicaSpec,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// A set of scenarios' shared cluster and controllers.
pub struct Environment {
    /// A client for the harness's own requests.
    pub client: Client,
    /// The embedded cluster, when the environment started one.
    pub embedded: Option<EmbeddedCluster>,
    /// The implementation under test: the set resource, its words.
    pub profile: Profile,
    /// The configuration controller clients are made from.
    config: kube::Config,
    /// What the environment was started with (environments of their own
    /// for `@isolated` scenarios start the same way).
    options: EnvironmentOptions,
    replicas: Mutex<BTreeMap<String, Replica>>,
    /// The namespaces of scenarios not yet cleaned up, for an interrupted run.
    live: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The metrics every in-process replica records into.
    metrics: crate::controller::Metrics,
    /// Whether the controller replicas run in this process (the bundled
    /// controller, or the replicas of an isolated environment).
    in_process: bool,
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("embedded", &self.embedded.is_some())
            .finish()
    }
}

/// Lease timings short enough for scenarios, in the same proportions as
/// kube-controller-manager's (15 s / 10 s / 2 s).
pub(crate) fn scenario_lease_timings() -> LeaseTimings {
    LeaseTimings {
        lease_duration: Duration::from_millis(1500),
        renew_deadline: Duration::from_millis(1000),
        retry_period: Duration::from_millis(200),
    }
}

impl Environment {
    /// Starts what the options ask for.
    pub async fn start(opts: &EnvironmentOptions) -> anyhow::Result<Self> {
        let (config, embedded) = if opts.embedded {
            let cfg = ClusterConfig {
                version: opts.kube_version,
                gates: opts.apiserver_gates.clone(),
                ..ClusterConfig::default()
            };
            let cluster = EmbeddedCluster::start(cfg).await?;
            if let Some(path) = &opts.write_kubeconfig {
                cluster.write_kubeconfig(path)?;
            }
            (cluster.client_config(), Some(cluster))
        } else {
            let config = crate::cluster::kubeconfig::client_config(
                opts.kubeconfig.as_deref(),
                opts.context.as_deref(),
            )
            .await?;
            (config, None)
        };
        let client = connect(embedded.as_ref(), &config)?;
        // Fail early, with the cause, when the cluster cannot be reached.
        tokio::time::timeout(Duration::from_secs(15), client.apiserver_version())
            .await
            .map_err(|_| anyhow::anyhow!("cluster unreachable: no answer within 15s"))?
            .map_err(|e| anyhow::anyhow!("cluster unreachable: {e}"))?;
        if !opts.profile.is_apps_v1() {
            // A vendor's resource on a cluster of kepspec's own: install its
            // CRDs so the bundled controller can stand in for the vendor's.
            if embedded.is_none() {
                // On a real cluster the profile's install commands did this.
            } else {
                let crds = opts.profile.crds()?;
                standin::install_crds(
                    &client,
                    &crds,
                    &opts.profile.api_resource(),
                    Duration::from_secs(10),
                )
                .await?;
            }
        }
        let env = Self {
            client,
            embedded,
            profile: opts.profile.clone(),
            config,
            options: opts.clone(),
            replicas: Mutex::new(BTreeMap::new()),
            live: Default::default(),
            metrics: Default::default(),
            in_process: opts.bundled_controller,
        };
        if opts.bundled_controller {
            env.start_replica(ReplicaSpec {
                identity: "controller".into(),
                gates: opts.controller_gates.clone(),
                leader_election: false,
            })
            .await?;
        }
        Ok(env)
    }

    /// An environment of its own for one scenario, started like `self`: a
    /// fresh embedded cluster of the same version and gates, and one
    /// controller replica campaigning for the lease.
    pub async fn isolated(&self) -> anyhow::Result<Self> {
        let opts = EnvironmentOptions {
            bundled_controller: false,
            write_kubeconfig: None,
            ..self.options.clone()
        };
        let mut env = Self::start(&opts).await?;
        env.in_process = true;
        env.start_replica(ReplicaSpec {
            identity: "controller-1".into(),
            gates: self.options.controller_gates.clone(),
            leader_election: true,
        })
        .await?;
        Ok(env)
    }

    /// The apiserver gates the environment started with.
    pub fn apiserver_gates(&self) -> ApiGates {
        self.options.apiserver_gates.clone()
    }

    /// The controller gates the environment started with.
    pub fn controller_gates(&self) -> ControllerGates {
        self.options.controller_gates.clone()
    }

    /// The exposition text of the controller under test's metrics, when
    /// kepspec can read them: the bundled controller running in-process as
    /// itself (not standing in for a vendor's controller, whose metrics it
    /// would not be).
    pub fn controller_metrics(&self) -> Option<String> {
        (self.in_process && self.profile.name() == "bundled").then(|| self.metrics.render())
    }

    /// Starts an in-process controller replica.
    pub async fn start_replica(&self, spec: ReplicaSpec) -> anyhow::Result<()> {
        let mut config = self.config.clone();
        let agent = format!("{CONTROLLER_AGENT}/{}", spec.identity);
        config.headers.push((
            http::header::USER_AGENT,
            http::HeaderValue::from_str(&agent)?,
        ));
        let client = connect(self.embedded.as_ref(), &config)?;
        let stop = CancellationToken::new();
        let opts = ControllerOptions {
            gates: spec.gates.clone(),
            resource: self.profile.api_resource(),
            fields: self.profile.fields().clone(),
            implementation: self.options.implementation,
            metrics: self.metrics.clone(),
            concurrency: IN_PROCESS_SYNCS,
            ..ControllerOptions::default()
        };
        let token = stop.clone();
        let task = if spec.leader_election {
            let election = Election {
                namespace: LEASE.0.into(),
                name: LEASE.1.into(),
                identity: spec.identity.clone(),
                timings: scenario_lease_timings(),
            };
            tokio::spawn(async move {
                if let Err(err) = controller::run_elected(client, opts, election, token).await {
                    tracing::error!(%err, "leader election stopped");
                }
            })
        } else {
            tokio::spawn(async move {
                if let Err(err) = controller::run(client, opts, token).await {
                    tracing::error!(%err, "bundled controller stopped");
                }
            })
        };
        let mut replicas = self.replicas.lock().await;
        if let Some(old) = replicas.insert(spec.identity.clone(), Replica { spec, stop, task }) {
            old.stop.cancel();
        }
        Ok(())
    }

    /// Stops a replica (gracefully: in-flight requests finish, the lease is
    /// not renewed any more). Returns whether it existed.
    pub async fn stop_replica(&self, identity: &str) -> bool {
        let replica = self.replicas.lock().await.remove(identity);
        match replica {
            Some(r) => {
                r.stop.cancel();
                let _ = tokio::time::timeout(Duration::from_secs(10), r.task).await;
                true
            }
            None => false,
        }
    }

    /// Restarts a replica with other gates (same identity, same election).
    pub async fn restart_replica(
        &self,
        identity: &str,
        gates: ControllerGates,
    ) -> anyhow::Result<()> {
        let spec = self
            .replicas
            .lock()
            .await
            .get(identity)
            .map(|r| r.spec.clone());
        let spec = spec.ok_or_else(|| {
            anyhow::anyhow!("no controller replica named {identity:?} is running")
        })?;
        self.stop_replica(identity).await;
        self.start_replica(ReplicaSpec { gates, ..spec }).await
    }

    /// The running replicas.
    pub async fn replicas(&self) -> Vec<ReplicaSpec> {
        self.replicas
            .lock()
            .await
            .values()
            .map(|r| r.spec.clone())
            .collect()
    }

    /// The holder of the controllers' lease, if any.
    pub async fn lease_holder(&self) -> Option<String> {
        let api: kube::Api<k8s_openapi::api::coordination::v1::Lease> =
            kube::Api::namespaced(self.client.clone(), LEASE.0);
        api.get_opt(LEASE.1)
            .await
            .ok()
            .flatten()?
            .spec?
            .holder_identity
    }

    /// Remembers a scenario's namespace until it is deleted.
    pub fn namespace_created(&self, namespace: &str) {
        if let Ok(mut live) = self.live.lock() {
            live.insert(namespace.to_string());
        }
    }

    /// Forgets a deleted scenario namespace.
    pub fn namespace_deleted(&self, namespace: &str) {
        if let Ok(mut live) = self.live.lock() {
            live.remove(namespace);
        }
    }

    /// Deletes the namespaces of scenarios that did not clean up after
    /// themselves (an interrupted run), at most `timeout` long; returns the
    /// ones that could not be deleted.
    pub async fn delete_live_namespaces(&self, timeout: Duration) -> Vec<String> {
        let names: Vec<String> = self
            .live
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default();
        let deletes = names.iter().map(|ns| {
            let client = self.client.clone();
            async move {
                let api = kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(client);
                match api.delete(ns, &Default::default()).await {
                    Ok(_) => None,
                    Err(kube::Error::Api(s)) if s.code == 404 => None,
                    Err(_) => Some(ns.clone()),
                }
            }
        });
        match tokio::time::timeout(timeout, futures::future::join_all(deletes)).await {
            Ok(left) => {
                let left: Vec<String> = left.into_iter().flatten().collect();
                if let Ok(mut live) = self.live.lock() {
                    live.retain(|n| left.contains(n));
                }
                left
            }
            Err(_) => names,
        }
    }

    /// Stops every controller replica.
    pub async fn stop(&self) {
        let identities: Vec<String> = self.replicas.lock().await.keys().cloned().collect();
        for id in identities {
            self.stop_replica(&id).await;
        }
    }

    /// Stops the controllers, then the embedded cluster.
    pub async fn shutdown(mut self) {
        self.stop().await;
        if let Some(cluster) = self.embedded.take() {
            cluster.shutdown().await;
        }
    }
}

/// Syncs the in-process controller runs at once. One controller serves
/// every scenario of a run, up to 64 running at once on the embedded
/// cluster (`Concurrency::EMBEDDED`), where kube-controller-manager serves
/// one cluster's sets with 5 (`--concurrent-statefulset-syncs`); with 4 (the
/// controller's own default), its queue fell seconds behind in a debug build
/// once more than 24 scenarios ran at once, and the spec's checks of how
/// soon the status follows the pods failed for a reason of the harness.
const IN_PROCESS_SYNCS: u16 = 16;

/// A client of the environment's cluster: in-process on the embedded
/// cluster (the same apiserver decisions, without the socket and HTTP/1
/// framing between; see `EmbeddedCluster::client_in_process`), over the
/// network otherwise.
fn connect(embedded: Option<&EmbeddedCluster>, config: &kube::Config) -> anyhow::Result<Client> {
    match embedded {
        Some(cluster) => cluster.client_in_process(config),
        None => Ok(Client::try_from(config.clone())?),
    }
}
