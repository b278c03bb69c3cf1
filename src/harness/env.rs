//! The environment a run shares between its scenarios: the cluster, the
//! client, and the implementation under test (the bundled controller started
//! in-process, or whatever already runs in the cluster).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use kube::Client;
use tokio_util::sync::CancellationToken;

use crate::controller::{self, ControllerGates, ControllerOptions};
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// How to set up a run's environment.
#[derive(Clone, Debug)]
pub struct EnvironmentOptions {
    /// Start the embedded cluster (true) or use the kubeconfig (false).
    pub embedded: bool,
    /// Kubeconfig for an existing cluster (None: the default lookup).
    pub kubeconfig: Option<PathBuf>,
    /// Start the bundled controller in-process.
    pub bundled_controller: bool,
    /// The bundled controller's feature gates.
    pub controller_gates: ControllerGates,
    /// Where the embedded cluster writes its kubeconfig.
    pub write_kubeconfig: Option<PathBuf>,
}

impl Default for EnvironmentOptions {
    fn default() -> Self {
        Self {
            embedded: true,
            kubeconfig: None,
            bundled_controller: true,
            controller_gates: ControllerGates::default(),
            write_kubeconfig: None,
        }
    }
}

/// A run's shared environment.
pub struct Environment {
    /// A client for the harness's own requests.
    pub client: Client,
    /// The embedded cluster, when the run started one.
    pub embedded: Option<EmbeddedCluster>,
    /// Stops the in-process controller.
    controller_stop: Option<CancellationToken>,
    controller_task: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("embedded", &self.embedded.is_some())
            .finish()
    }
}

static CURRENT: OnceLock<Arc<Environment>> = OnceLock::new();

impl Environment {
    /// Starts what the options ask for.
    pub async fn start(opts: &EnvironmentOptions) -> anyhow::Result<Self> {
        let (client, embedded) = if opts.embedded {
            let cluster = EmbeddedCluster::start(ClusterConfig::default()).await?;
            if let Some(path) = &opts.write_kubeconfig {
                cluster.write_kubeconfig(path)?;
            }
            (cluster.client().await?, Some(cluster))
        } else {
            let config = match &opts.kubeconfig {
                Some(path) => {
                    let kc = kube::config::Kubeconfig::read_from(path).map_err(|e| {
                        anyhow::anyhow!("cannot read kubeconfig {}: {e}", path.display())
                    })?;
                    kube::Config::from_custom_kubeconfig(kc, &Default::default()).await?
                }
                None => kube::Config::infer().await?,
            };
            (Client::try_from(config)?, None)
        };
        // Fail early, with the cause, when the cluster cannot be reached.
        client
            .apiserver_version()
            .await
            .map_err(|e| anyhow::anyhow!("cluster unreachable: {e}"))?;
        let mut env = Self {
            client,
            embedded,
            controller_stop: None,
            controller_task: None,
        };
        if opts.bundled_controller {
            let stop = CancellationToken::new();
            let opts = ControllerOptions {
                gates: opts.controller_gates.clone(),
                ..ControllerOptions::default()
            };
            let client = env.client.clone();
            let token = stop.clone();
            env.controller_task = Some(tokio::spawn(async move {
                if let Err(err) = controller::run(client, opts, token).await {
                    tracing::error!(%err, "bundled controller stopped");
                }
            }));
            env.controller_stop = Some(stop);
        }
        Ok(env)
    }

    /// Makes this the environment scenarios use.
    pub fn install(self) -> Arc<Self> {
        let env = Arc::new(self);
        let _ = CURRENT.set(env.clone());
        env
    }

    /// The installed environment.
    pub fn current() -> anyhow::Result<Arc<Self>> {
        CURRENT
            .get()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no environment installed"))
    }

    /// Stops the controller and the cluster.
    pub async fn stop(&self) {
        if let Some(stop) = &self.controller_stop {
            stop.cancel();
        }
    }

    /// Waits for the controller task after [`stop`](Self::stop).
    pub async fn join(mut self) {
        self.stop().await;
        if let Some(task) = self.controller_task.take() {
            let _ = task.await;
        }
        if let Some(cluster) = self.embedded.take() {
            cluster.shutdown().await;
        }
    }
}
