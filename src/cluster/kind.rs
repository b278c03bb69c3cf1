//! `--cluster kind`: create (or reuse) a kind cluster from a config under
//! `clusters/kind/`, build and load the controller image, apply the
//! manifests, wait for the controller, and delete the cluster afterwards.
//!
//! The plan is pure data ([`KindPlan::setup`], [`KindPlan::teardown`]) so
//! `--dry-run` prints exactly what a real run executes, and tests check the
//! command lines without Docker. Execution goes through `xshell`.

use std::fmt;
use std::path::{Path, PathBuf};

/// One command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The program (`kind`, `docker`, `kubectl`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Why it runs, for humans.
    pub purpose: String,
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.program)?;
        for a in &self.args {
            if a.contains(' ') || a.is_empty() {
                write!(f, " '{a}'")?;
            } else {
                write!(f, " {a}")?;
            }
        }
        Ok(())
    }
}

fn cmd(program: &str, args: &[&str], purpose: &str) -> Command {
    Command {
        program: program.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        purpose: purpose.into(),
    }
}

/// What runs on the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindTarget {
    /// The bundled controller (kube-controller-manager's statefulset controller off).
    Bundled,
    /// kube-controller-manager's own controller.
    Upstream,
}

/// How to provision a kind cluster.
#[derive(Clone, Debug)]
pub struct KindPlan {
    /// Cluster name (`kind create cluster --name`).
    pub name: String,
    /// The implementation under test.
    pub target: KindTarget,
    /// Reuse an existing cluster of that name rather than creating one.
    pub reuse: bool,
    /// Keep the cluster afterwards.
    pub keep: bool,
    /// kindest/node image (None: kind's default).
    pub node_image: Option<String>,
    /// The project root (where `clusters/` is).
    pub root: PathBuf,
    /// Controller image tag.
    pub image: String,
    /// Where the kubeconfig of the cluster is written.
    pub kubeconfig: PathBuf,
    /// A kind config to use instead of the target's (e.g. one filtered for
    /// the node image's Kubernetes version).
    pub config_override: Option<PathBuf>,
    /// Commands that install the implementation under test once the cluster
    /// is up (a vendor profile's `install` and `ready`).
    pub install: Vec<Command>,
}

impl KindPlan {
    /// A plan with the project's defaults.
    pub fn new(root: &Path, target: KindTarget, kubeconfig: &Path) -> Self {
        Self {
            name: "kepspec".into(),
            target,
            reuse: false,
            keep: false,
            node_image: None,
            root: root.to_path_buf(),
            image: "kepspec/controller:dev".into(),
            kubeconfig: kubeconfig.to_path_buf(),
            config_override: None,
            install: Vec::new(),
        }
    }

    /// The kind config for the target.
    pub fn config(&self) -> PathBuf {
        if let Some(path) = &self.config_override {
            return path.clone();
        }
        let file = match self.target {
            KindTarget::Bundled => "bundled.yaml",
            KindTarget::Upstream => "upstream.yaml",
        };
        self.root.join("clusters/kind").join(file)
    }

    fn context(&self) -> String {
        format!("kind-{}", self.name)
    }

    /// The commands that bring the cluster and the controller up.
    pub fn setup(&self) -> Vec<Command> {
        let mut out = Vec::new();
        let config = self.config().display().to_string();
        let kubeconfig = self.kubeconfig.display().to_string();
        if !self.reuse {
            let mut create = cmd(
                "kind",
                &[
                    "create",
                    "cluster",
                    "--name",
                    &self.name,
                    "--config",
                    &config,
                    "--kubeconfig",
                    &kubeconfig,
                    "--wait",
                    "120s",
                ],
                "create the cluster",
            );
            if let Some(image) = &self.node_image {
                create.args.extend(["--image".to_string(), image.clone()]);
            }
            out.push(create);
        } else {
            out.push(cmd(
                "kind",
                &[
                    "export",
                    "kubeconfig",
                    "--name",
                    &self.name,
                    "--kubeconfig",
                    &kubeconfig,
                ],
                "use the existing cluster",
            ));
        }
        if self.target == KindTarget::Bundled {
            let dockerfile = self.root.join("clusters/Dockerfile").display().to_string();
            let root = self.root.display().to_string();
            let manifests = self
                .root
                .join("clusters/manifests/controller.yaml")
                .display()
                .to_string();
            let ctx = self.context();
            out.push(cmd(
                "docker",
                &["build", "-f", &dockerfile, "-t", &self.image, &root],
                "build the controller image",
            ));
            out.push(cmd(
                "kind",
                &["load", "docker-image", &self.image, "--name", &self.name],
                "load the image into the nodes",
            ));
            out.push(cmd(
                "kubectl",
                &[
                    "--kubeconfig",
                    &kubeconfig,
                    "--context",
                    &ctx,
                    "apply",
                    "-f",
                    &manifests,
                ],
                "deploy the controller",
            ));
            out.push(cmd(
                "kubectl",
                &[
                    "--kubeconfig",
                    &kubeconfig,
                    "--context",
                    &ctx,
                    "-n",
                    "kepspec-system",
                    "rollout",
                    "status",
                    "deployment/statefulset-controller",
                    "--timeout=120s",
                ],
                "wait for the controller to be ready",
            ));
        }
        out.extend(self.install.iter().cloned());
        out
    }

    /// The commands run after the scenarios: logs, then deletion unless kept.
    pub fn teardown(&self, report_dir: Option<&Path>) -> Vec<Command> {
        let mut out = Vec::new();
        if let (KindTarget::Bundled, Some(dir)) = (self.target, report_dir) {
            let kubeconfig = self.kubeconfig.display().to_string();
            let ctx = self.context();
            let _ = dir;
            out.push(cmd(
                "kubectl",
                &[
                    "--kubeconfig",
                    &kubeconfig,
                    "--context",
                    &ctx,
                    "-n",
                    "kepspec-system",
                    "logs",
                    "deployment/statefulset-controller",
                    "--tail=-1",
                ],
                "collect the controller log",
            ));
        }
        if !self.keep {
            out.push(cmd(
                "kind",
                &["delete", "cluster", "--name", &self.name],
                "delete the cluster",
            ));
        }
        out
    }
}

/// The tools a plan needs, each with how to install it.
pub fn required_tools(target: KindTarget) -> Vec<(&'static str, &'static str)> {
    let mut tools = vec![
        (
            "kind",
            "install kind: https://kind.sigs.k8s.io/docs/user/quick-start/#installation",
        ),
        (
            "kubectl",
            "install kubectl: https://kubernetes.io/docs/tasks/tools/",
        ),
    ];
    if target == KindTarget::Bundled {
        tools.push((
            "docker",
            "install Docker Engine: https://docs.docker.com/engine/install/",
        ));
    }
    tools
}

/// The first missing tool, as a one-line error.
pub fn check_tools(target: KindTarget, on_path: impl Fn(&str) -> bool) -> Result<(), String> {
    for (tool, how) in required_tools(target) {
        if !on_path(tool) {
            return Err(format!("`{tool}` is not installed or not on PATH; {how}"));
        }
    }
    Ok(())
}

/// Whether a program is on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// Runs commands in order through xshell; stops at the first failure,
/// naming the command and its purpose.
pub fn execute(commands: &[Command]) -> Result<Vec<String>, String> {
    let sh = xshell::Shell::new().map_err(|e| e.to_string())?;
    let mut outputs = Vec::new();
    for c in commands {
        eprintln!("+ {c}");
        let out = sh
            .cmd(&c.program)
            .args(&c.args)
            .read()
            .map_err(|e| format!("could not {} (`{c}`): {e}", c.purpose))?;
        outputs.push(out);
    }
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(target: KindTarget) -> KindPlan {
        KindPlan::new(Path::new("/src/kepspec"), target, Path::new("/tmp/kc"))
    }

    #[test]
    fn bundled_setup_creates_builds_loads_applies_and_waits() {
        let lines: Vec<String> = plan(KindTarget::Bundled)
            .setup()
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(
            lines,
            vec![
                "kind create cluster --name kepspec --config /src/kepspec/clusters/kind/bundled.yaml --kubeconfig /tmp/kc --wait 120s",
                "docker build -f /src/kepspec/clusters/Dockerfile -t kepspec/controller:dev /src/kepspec",
                "kind load docker-image kepspec/controller:dev --name kepspec",
                "kubectl --kubeconfig /tmp/kc --context kind-kepspec apply -f /src/kepspec/clusters/manifests/controller.yaml",
                "kubectl --kubeconfig /tmp/kc --context kind-kepspec -n kepspec-system rollout status deployment/statefulset-controller --timeout=120s",
            ]
        );
    }

    #[test]
    fn upstream_reuses_and_keeps_without_building() {
        let mut p = plan(KindTarget::Upstream);
        p.reuse = true;
        p.keep = true;
        let setup: Vec<String> = p.setup().iter().map(|c| c.program.clone()).collect();
        assert_eq!(setup, vec!["kind"]);
        assert!(p.setup()[0].args.contains(&"export".to_string()));
        assert!(p.teardown(None).is_empty());
        assert!(p.config().ends_with("clusters/kind/upstream.yaml"));
    }

    #[test]
    fn node_image_and_teardown() {
        let mut p = plan(KindTarget::Bundled);
        p.node_image = Some("kindest/node:v1.37.0".into());
        assert!(p.setup()[0]
            .to_string()
            .ends_with("--image kindest/node:v1.37.0"));
        let down: Vec<String> = p
            .teardown(Some(Path::new("out")))
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(down.len(), 2);
        assert!(down[0].contains("logs deployment/statefulset-controller"));
        assert_eq!(down[1], "kind delete cluster --name kepspec");
    }

    #[test]
    fn a_missing_tool_is_named_with_how_to_install_it() {
        let err = check_tools(KindTarget::Bundled, |t| t != "docker").unwrap_err();
        assert!(err.starts_with("`docker` is not installed"), "{err}");
        assert!(check_tools(KindTarget::Upstream, |t| t != "docker").is_ok());
    }

    #[test]
    fn the_shipped_kind_configs_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for target in [KindTarget::Bundled, KindTarget::Upstream] {
            let p = KindPlan::new(root, target, Path::new("/tmp/kc"));
            let text = std::fs::read_to_string(p.config()).unwrap();
            let v: serde_json::Value = serde_yaml_ng::from_str(&text).unwrap();
            assert_eq!(v["kind"], "Cluster");
            assert_eq!(v["featureGates"]["StatefulSetRecreateStrategy"], true);
        }
    }

    #[test]
    fn the_controller_manifest_parses_and_its_args_are_the_clis() {
        use clap::Parser as _;
        use serde::Deserialize as _;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text =
            std::fs::read_to_string(root.join("clusters/manifests/controller.yaml")).unwrap();
        let docs: Vec<serde_json::Value> = serde_yaml_ng::Deserializer::from_str(&text)
            .map(|d| serde_json::Value::deserialize(d).unwrap())
            .collect();
        let kinds: Vec<&str> = docs.iter().filter_map(|d| d["kind"].as_str()).collect();
        assert_eq!(
            kinds,
            vec![
                "Namespace",
                "ServiceAccount",
                "ClusterRole",
                "ClusterRoleBinding",
                "Role",
                "RoleBinding",
                "Deployment"
            ]
        );
        let deployment = docs.iter().find(|d| d["kind"] == "Deployment").unwrap();
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        let args: Vec<&str> = container["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a.as_str())
            .collect();
        let cli = crate::cli::Cli::try_parse_from(
            ["kepspec", "controller"]
                .into_iter()
                .chain(args.iter().copied()),
        );
        assert!(cli.is_ok(), "{:?}", cli.err());
        // The image's entrypoint is `kepspec controller` (clusters/Dockerfile).
        let dockerfile = std::fs::read_to_string(root.join("clusters/Dockerfile")).unwrap();
        assert!(dockerfile.contains(r#"ENTRYPOINT ["/usr/local/bin/kepspec", "controller"]"#));
    }
}
