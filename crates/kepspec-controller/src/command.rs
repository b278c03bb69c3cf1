//! The controller as a program of its own: its options and the loop that
//! serves them, shared by the `kepspec-controller` binary (the controller
//! image) and `kepspec controller`.

use std::path::PathBuf;

use clap::Args;
use tokio_util::sync::CancellationToken;

use crate::{ControllerGates, ControllerOptions};

/// Exit code after a clean stop.
const EXIT_PASSED: u8 = 0;
/// Exit code for a bad option or a failure to reach the cluster.
const EXIT_ERROR: u8 = 2;

/// The controller's options: `kepspec controller` and `kepspec-controller`
/// take the same ones.
#[derive(Clone, Debug, Args)]
pub struct ControllerArgs {
    /// Kubeconfig (default: in-cluster config or $KUBECONFIG).
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Reconcile one namespace only.
    #[arg(long)]
    pub namespace: Option<String>,
    /// Controller feature gates, e.g. `StatefulSetRecreateStrategy=false,MaxUnavailableStatefulSet=true`.
    #[arg(long)]
    pub feature_gates: Option<String>,
    /// Campaign for a coordination.k8s.io Lease before acting, so several
    /// replicas can run (only the leader reconciles).
    #[arg(long)]
    pub leader_elect: bool,
    /// Namespace of the leader-election Lease.
    #[arg(long, default_value = "kube-system")]
    pub leader_elect_namespace: String,
    /// Serve Prometheus metrics (and /healthz) on this address (loopback by
    /// default; the controller's Deployment manifest passes 0.0.0.0:8080 so
    /// its probes and Prometheus reach it).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub metrics_bind_address: std::net::SocketAddr,
}

/// Runs the controller against the cluster the options name until SIGINT or
/// SIGTERM; the exit code: 0 after a clean stop, 2 on an error.
pub async fn serve(args: &ControllerArgs) -> u8 {
    let gates = match args
        .feature_gates
        .as_deref()
        .map(ControllerGates::parse)
        .transpose()
    {
        Ok(g) => g.unwrap_or_default(),
        Err(e) => {
            eprintln!("error: --feature-gates: {e}");
            return EXIT_ERROR;
        }
    };
    let config = match &args.kubeconfig {
        Some(path) => match kube::config::Kubeconfig::read_from(path) {
            Ok(kc) => kube::Config::from_custom_kubeconfig(kc, &Default::default())
                .await
                .map_err(anyhow::Error::from),
            Err(e) => Err(anyhow::Error::from(e)),
        },
        None => kube::Config::infer().await.map_err(anyhow::Error::from),
    };
    let client = match config.and_then(|c| kube::Client::try_from(c).map_err(anyhow::Error::from)) {
        Ok(c) => c,
        Err(err) => {
            eprintln!("error: cannot configure a client: {err:#}");
            return EXIT_ERROR;
        }
    };
    let stop = CancellationToken::new();
    let token = stop.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        token.cancel();
    });
    let metrics = crate::metrics::Metrics::default();
    match crate::metrics::serve(args.metrics_bind_address, metrics.clone(), stop.clone()).await {
        Ok(addr) => eprintln!("metrics on http://{addr}/metrics"),
        Err(err) => {
            eprintln!(
                "error: cannot serve metrics on {}: {err:#}",
                args.metrics_bind_address
            );
            return EXIT_ERROR;
        }
    }
    let opts = ControllerOptions {
        gates,
        namespace: args.namespace.clone(),
        metrics,
        ..ControllerOptions::default()
    };
    let result = if args.leader_elect {
        let identity = std::env::var("POD_NAME")
            .or_else(|_| std::env::var("HOSTNAME"))
            .unwrap_or_else(|_| format!("kepspec-{:08x}", rand::random::<u32>()));
        let election = crate::leader::Election {
            namespace: args.leader_elect_namespace.clone(),
            name: "kepspec-statefulset-controller".into(),
            identity,
            timings: crate::leader::LeaseTimings::default(),
        };
        crate::run::run_elected(client, opts, election, stop).await
    } else {
        crate::run(client, opts, stop).await
    };
    match result {
        Ok(()) => EXIT_PASSED,
        Err(err) => {
            eprintln!("error: {err:#}");
            EXIT_ERROR
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}
