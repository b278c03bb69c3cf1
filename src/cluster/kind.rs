//! `--cluster kind`: create (or reuse) a kind cluster from a config under
//! `clusters/kind/`, build and load the controller image, apply the
//! manifests, wait for the controller, and delete the cluster afterwards.
//!
//! The plan is pure data ([`KindPlan::setup`], [`KindPlan::teardown`]) so
//! `--dry-run` prints exactly what a real run executes, and tests check the
//! command lines without Docker. Execution goes through `xshell`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The node image a kind run uses when `--node-image` names none: kind
/// v0.33.0's default (its release notes; kind PR #4248), pinned so that the
/// kind configuration can be filtered for the release it runs.
pub(crate) const DEFAULT_NODE_IMAGE: &str =
    "kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5";

/// The Lease the bundled controller's replicas campaign for.
pub(crate) const CONTROLLER_LEASE: &str = "kepspec-statefulset-controller";

/// One command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The program (`kind`, `docker`, `kubectl`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Why it runs, for humans.
    pub purpose: String,
    /// How long it may run (None: unbounded).
    pub timeout: Option<Duration>,
    /// Text its output must contain, and what it means when it does not.
    pub expect: Option<(String, String)>,
    /// A file of the report folder its output is saved to.
    pub save_as: Option<&'static str>,
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
        timeout: None,
        expect: None,
        save_as: None,
    }
}

/// What runs on the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KindTarget {
    /// The bundled controller (kube-controller-manager's statefulset controller off).
    Bundled,
    /// kube-controller-manager's own controller.
    Upstream,
}

/// How to provision a kind cluster.
#[derive(Clone, Debug)]
pub(crate) struct KindPlan {
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
    pub(crate) fn new(root: &Path, target: KindTarget, kubeconfig: &Path) -> Self {
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
    pub(crate) fn config(&self) -> PathBuf {
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
    pub(crate) fn setup(&self) -> Vec<Command> {
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
            create
                .args
                .extend(["--image".to_string(), self.node_image()]);
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
            if self.target == KindTarget::Bundled {
                // A reused cluster was made elsewhere: two StatefulSet
                // controllers acting on one set would make every verdict
                // meaningless.
                let mut check = cmd(
                    "kubectl",
                    &[
                        "--kubeconfig",
                        &kubeconfig,
                        "-n",
                        "kube-system",
                        "get",
                        "pods",
                        "-l",
                        "component=kube-controller-manager",
                        "-o",
                        "jsonpath={.items[*].spec.containers[*].command}",
                    ],
                    "check that kube-controller-manager's statefulset controller is off",
                );
                check.expect = Some((
                    "-statefulset-controller".into(),
                    "kube-controller-manager of the reused cluster does not run with --controllers=...,-statefulset-controller; its own StatefulSet controller would act beside the bundled one".into(),
                ));
                out.push(check);
            }
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

    /// The node image the cluster is created from.
    pub(crate) fn node_image(&self) -> String {
        self.node_image
            .clone()
            .unwrap_or_else(|| DEFAULT_NODE_IMAGE.to_string())
    }

    /// The commands run after the scenarios: the controller's logs (which
    /// replica leads, and every replica's log, each line prefixed with its
    /// pod), then deletion unless the cluster is kept or was reused.
    pub(crate) fn teardown(&self, report_dir: Option<&Path>) -> Vec<Command> {
        let mut out = Vec::new();
        if let (KindTarget::Bundled, Some(_)) = (self.target, report_dir) {
            let kubeconfig = self.kubeconfig.display().to_string();
            let ctx = self.context();
            let mut leader = cmd(
                "kubectl",
                &[
                    "--kubeconfig",
                    &kubeconfig,
                    "--context",
                    &ctx,
                    "-n",
                    "kepspec-system",
                    "get",
                    "lease",
                    CONTROLLER_LEASE,
                    "-o",
                    "jsonpath={.spec.holderIdentity}",
                ],
                "find the leading controller replica",
            );
            leader.save_as = Some("controller-leader.txt");
            out.push(leader);
            let mut logs = cmd(
                "kubectl",
                &[
                    "--kubeconfig",
                    &kubeconfig,
                    "--context",
                    &ctx,
                    "-n",
                    "kepspec-system",
                    "logs",
                    "-l",
                    "app.kubernetes.io/name=kepspec-statefulset-controller",
                    "--prefix",
                    "--tail=-1",
                    "--max-log-requests=10",
                ],
                "collect every controller replica's log",
            );
            logs.save_as = Some("controller-replicas.log");
            out.push(logs);
        }
        if !self.keep && !self.reuse {
            out.push(cmd(
                "kind",
                &["delete", "cluster", "--name", &self.name],
                "delete the cluster",
            ));
        }
        out
    }
}

/// Why a kind configuration could not bring up its workers: it overrides
/// kube-controller-manager's `controllers` (which replaces kubeadm's
/// `*,bootstrapsigner,tokencleaner`) without the bootstrap signer and token
/// cleaner, and has a node that joins with a bootstrap token.
pub(crate) fn controllers_problem(config_yaml: &str) -> Result<Option<String>, String> {
    let config: serde_json::Value =
        crate::yaml::from_str(config_yaml).map_err(|e| format!("kind config: {e}"))?;
    let nodes = config["nodes"].as_array().cloned().unwrap_or_default();
    let joins = nodes.len() > 1;
    for patch in config["kubeadmConfigPatches"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(text) = patch.as_str() else { continue };
        let doc: serde_json::Value =
            crate::yaml::from_str(text).map_err(|e| format!("kubeadmConfigPatches: {e}"))?;
        let args = &doc["controllerManager"]["extraArgs"];
        // v1beta3 writes a map, v1beta4 a list of {name, value}.
        let value = args["controllers"]
            .as_str()
            .map(str::to_string)
            .or_else(|| {
                args.as_array()?
                    .iter()
                    .find(|a| a["name"] == "controllers")
                    .and_then(|a| a["value"].as_str())
                    .map(str::to_string)
            });
        let Some(value) = value else { continue };
        let listed: Vec<&str> = value.split(',').map(str::trim).collect();
        let missing: Vec<&str> = ["bootstrapsigner", "tokencleaner"]
            .into_iter()
            .filter(|c| !listed.contains(c))
            .collect();
        if joins && !missing.is_empty() {
            return Ok(Some(format!(
                "controllerManager.extraArgs.controllers is {value:?}, which replaces kubeadm's \"*,bootstrapsigner,tokencleaner\" and lacks {}: no worker could join",
                missing.join(" and ")
            )));
        }
    }
    Ok(None)
}

/// The tools a plan needs, each with how to install it.
pub(crate) fn required_tools(target: KindTarget) -> Vec<(&'static str, &'static str)> {
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
pub(crate) fn check_tools(
    target: KindTarget,
    on_path: impl Fn(&str) -> bool,
) -> Result<(), String> {
    for (tool, how) in required_tools(target) {
        if !on_path(tool) {
            return Err(format!("`{tool}` is not installed or not on PATH; {how}"));
        }
    }
    Ok(())
}

/// Whether a program is on PATH.
pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// What a command printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs commands in order, each within its timeout; stops at the first
/// failure (a non-zero exit, a timeout, an expectation not met), naming the
/// command and its purpose and quoting the end of what it printed.
pub(crate) fn execute(commands: &[Command]) -> Result<Vec<Output>, String> {
    let mut outputs = Vec::new();
    for c in commands {
        eprintln!("+ {c}");
        let out = run_one(c)?;
        if let Some((text, meaning)) = &c.expect {
            if !out.stdout.contains(text.as_str()) {
                return Err(format!("{meaning} (`{c}` printed: {})", tail(&out.stdout)));
            }
        }
        outputs.push(out);
    }
    Ok(outputs)
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(20);
    let t = lines[start..].join("\n");
    if t.trim().is_empty() {
        "nothing".into()
    } else {
        t
    }
}

fn run_one(c: &Command) -> Result<Output, String> {
    use std::io::Read as _;
    let mut child = std::process::Command::new(&c.program)
        .args(&c.args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not {} (`{c}`): {e}", c.purpose))?;
    // Drain both pipes while waiting, so a chatty command cannot block.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.read_to_string(&mut s);
        }
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(e.to_string()),
        }
        if c.timeout.is_some_and(|t| started.elapsed() > t) {
            let _ = child.kill();
            let _ = child.wait();
            break Err(format!(
                "timed out after {}s",
                c.timeout.map(|t| t.as_secs()).unwrap_or_default()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = Output {
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    };
    match status {
        Ok(s) if s.success() => Ok(output),
        Ok(s) => Err(format!(
            "could not {} (`{c}` exited with {s}): {}",
            c.purpose,
            tail(&format!("{}{}", output.stdout, output.stderr))
        )),
        Err(e) => Err(format!(
            "could not {} (`{c}` {e}): {}",
            c.purpose,
            tail(&format!("{}{}", output.stdout, output.stderr))
        )),
    }
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
                format!("kind create cluster --name kepspec --config /src/kepspec/clusters/kind/bundled.yaml --kubeconfig /tmp/kc --wait 120s --image {DEFAULT_NODE_IMAGE}").as_str(),
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
        // A reused cluster is never deleted, kept or not.
        p.keep = false;
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
        assert_eq!(down.len(), 3);
        assert!(down[0].contains("get lease kepspec-statefulset-controller"));
        assert!(down[1]
            .contains("logs -l app.kubernetes.io/name=kepspec-statefulset-controller --prefix"));
        assert_eq!(down[2], "kind delete cluster --name kepspec");
    }

    #[test]
    fn a_missing_tool_is_named_with_how_to_install_it() {
        let err = check_tools(KindTarget::Bundled, |t| t != "docker").unwrap_err();
        assert!(err.starts_with("`docker` is not installed"), "{err}");
        assert!(check_tools(KindTarget::Upstream, |t| t != "docker").is_ok());
    }

    #[test]
    fn a_controllers_override_keeps_the_bootstrap_signer_for_workers_to_join() {
        let old = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n  - |\n    kind: ClusterConfiguration\n    controllerManager:\n      extraArgs:\n        controllers: \"*,-statefulset-controller\"\nnodes:\n  - role: control-plane\n  - role: worker\n";
        let problem = controllers_problem(old).unwrap().unwrap();
        assert!(
            problem.contains("bootstrapsigner and tokencleaner"),
            "{problem}"
        );
        let v1beta4 = old.replace(
            "      extraArgs:\n        controllers: \"*,-statefulset-controller\"",
            "      extraArgs:\n        - name: controllers\n          value: \"*,tokencleaner,-statefulset-controller\"",
        );
        assert!(controllers_problem(&v1beta4)
            .unwrap()
            .unwrap()
            .contains("lacks bootstrapsigner"));
        // A single node joins nothing.
        let single = old.replace("  - role: worker\n", "");
        assert_eq!(controllers_problem(&single).unwrap(), None);
        // Every shipped configuration passes.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(root.join("clusters/kind")).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                controllers_problem(&text).unwrap(),
                None,
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn the_shipped_kind_configs_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for target in [KindTarget::Bundled, KindTarget::Upstream] {
            let p = KindPlan::new(root, target, Path::new("/tmp/kc"));
            let text = std::fs::read_to_string(p.config()).unwrap();
            let v: serde_json::Value = crate::yaml::from_str(&text).unwrap();
            assert_eq!(v["kind"], "Cluster");
            assert_eq!(v["featureGates"]["StatefulSetRecreateStrategy"], true);
        }
    }

    #[test]
    fn the_controller_manifest_parses_and_its_args_are_the_clis() {
        use clap::Parser as _;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text =
            std::fs::read_to_string(root.join("clusters/manifests/controller.yaml")).unwrap();
        let docs: Vec<serde_json::Value> = crate::yaml::documents(&text).unwrap();
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
        // The image's entrypoint is `kepspec-controller` (clusters/Dockerfile),
        // which takes the same options as `kepspec controller`.
        let dockerfile = std::fs::read_to_string(root.join("clusters/Dockerfile")).unwrap();
        assert!(dockerfile.contains(r#"ENTRYPOINT ["/usr/local/bin/kepspec-controller"]"#));
    }
}
