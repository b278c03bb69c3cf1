//! A client configuration for an existing cluster: a kubeconfig file (or
//! the default lookup) and, optionally, one of its contexts.

use std::path::Path;

use kube::config::{KubeConfigOptions, Kubeconfig};

/// The configuration for `path` (None: `$KUBECONFIG`, then
/// `~/.kube/config`, then the in-cluster service account) and `context`
/// (None: the current context). Errors name the file and the context.
pub(crate) async fn client_config(
    path: Option<&Path>,
    context: Option<&str>,
) -> anyhow::Result<kube::Config> {
    let options = KubeConfigOptions {
        context: context.map(str::to_string),
        ..KubeConfigOptions::default()
    };
    let named = |e: &dyn std::fmt::Display| match context {
        Some(c) => anyhow::anyhow!("kubeconfig context {c}: {e}"),
        None => anyhow::anyhow!("{e}"),
    };
    match path {
        Some(path) => {
            let kc = Kubeconfig::read_from(path)
                .map_err(|e| anyhow::anyhow!("cannot read kubeconfig {}: {e}", path.display()))?;
            kube::Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| named(&format!("{}: {e}", path.display())))
        }
        None if context.is_some() => kube::Config::from_kubeconfig(&options)
            .await
            .map_err(|e| named(&e)),
        None => Ok(kube::Config::infer().await?),
    }
}
