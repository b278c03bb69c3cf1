//! `kepspec wait rollout`: waits until a StatefulSet's rollout is complete,
//! whatever its update strategy (the decision is
//! [`kepspec_core::rollout::rollout_state`]; this is its I/O).

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::StatefulSet;
use kepspec_core::rollout::{rollout_state, RolloutState};
use kube::{Api, Client};

use crate::cli::{WaitRolloutArgs, EXIT_ERROR, EXIT_FAILED, EXIT_PASSED};

/// How often the set is read.
const POLL: Duration = Duration::from_millis(500);

/// The set's name from `NAME`, `statefulset/NAME` or `sts/NAME`.
fn set_name(arg: &str) -> Result<&str, String> {
    let name = ["statefulset/", "statefulsets/", "sts/", "statefulset.apps/"]
        .iter()
        .find_map(|p| arg.strip_prefix(p))
        .unwrap_or(arg);
    if name.is_empty() || name.contains('/') {
        return Err(format!(
            "`{arg}` is not a StatefulSet: expected NAME or statefulset/NAME"
        ));
    }
    Ok(name)
}

/// Runs the command; returns its exit code.
pub async fn rollout(args: &WaitRolloutArgs) -> u8 {
    let name = match set_name(&args.name) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let config = match crate::cluster::kubeconfig::client_config(
        args.kubeconfig.as_deref(),
        args.context.as_deref(),
    )
    .await
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let client = match Client::try_from(config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let api: Api<StatefulSet> = Api::namespaced(client, &args.namespace);
    let place = format!("statefulset {}/{name}", args.namespace);
    let deadline = Instant::now() + args.timeout;
    let mut said = String::new();
    loop {
        match api.get_opt(name).await {
            Ok(Some(set)) => match rollout_state(&set) {
                RolloutState::Complete(m) => {
                    println!("{m}");
                    return EXIT_PASSED;
                }
                RolloutState::Waiting(m) => {
                    if m != said {
                        println!("{m}");
                        said = m;
                    }
                }
            },
            Ok(None) => {
                eprintln!("error: {place} not found");
                return EXIT_ERROR;
            }
            Err(kube::Error::Api(e)) => {
                eprintln!("error: {place}: {} ({})", e.message, e.code);
                return EXIT_ERROR;
            }
            // The cluster may come back: keep asking until the deadline.
            Err(e) => {
                let m = format!("cannot read {place}: {e}");
                if m != said {
                    eprintln!("{m}");
                    said = m;
                }
            }
        }
        let now = Instant::now();
        if now >= deadline {
            eprintln!(
                "error: timed out after {}s waiting for the rollout of {place}: {said}",
                args.timeout.as_secs()
            );
            return EXIT_FAILED;
        }
        tokio::time::sleep(POLL.min(deadline - now)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_take_kubectl_forms() {
        assert_eq!(set_name("web"), Ok("web"));
        assert_eq!(set_name("statefulset/web"), Ok("web"));
        assert_eq!(set_name("sts/web"), Ok("web"));
        assert!(set_name("deployment/web").is_err());
        assert!(set_name("statefulset/").is_err());
    }

    #[tokio::test]
    async fn waits_for_a_recreate_set_and_says_when_it_is_done() {
        let cluster = crate::sim::EmbeddedCluster::start(crate::sim::ClusterConfig {
            run_nodes: false,
            ..Default::default()
        })
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        cluster.write_kubeconfig(&kubeconfig).unwrap();
        let client = cluster.client().await.unwrap();
        let api: Api<StatefulSet> = Api::namespaced(client, "default");
        let set: StatefulSet = serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web"},
            "spec": {"replicas": 1, "serviceName": "web",
                     "selector": {"matchLabels": {"app": "web"}},
                     "updateStrategy": {"type": "Recreate"},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "app", "image": "x"}]}}}
        }))
        .unwrap();
        api.create(&Default::default(), &set).await.unwrap();
        let args = |name: &str, secs: u64| WaitRolloutArgs {
            name: name.into(),
            namespace: "default".into(),
            timeout: Duration::from_secs(secs),
            kubeconfig: Some(kubeconfig.clone()),
            context: None,
        };
        // No controller runs here: the rollout never completes.
        assert_eq!(rollout(&args("statefulset/web", 1)).await, EXIT_FAILED);
        assert_eq!(rollout(&args("missing", 1)).await, EXIT_ERROR);
        // The status a controller writes when every pod is recreated.
        let status = json!({"status": {"observedGeneration": 1, "replicas": 1,
            "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1,
            "currentReplicas": 1, "currentRevision": "web-a", "updateRevision": "web-a"}});
        api.patch_status(
            "web",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&status),
        )
        .await
        .unwrap();
        assert_eq!(rollout(&args("web", 5)).await, EXIT_PASSED);
    }
}
