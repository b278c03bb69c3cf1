//! `kepspec run --cluster kind`: provision a kind cluster for the target,
//! run the scenarios against its kubeconfig, collect the controller's logs
//! and tear down.
//!
//! Everything is decided first, as data ([`KindRun::new`]): the kind
//! configuration filtered for the node image's release, the commands, and
//! the inner run's arguments, which include the feature gates the
//! configuration turns on. `--dry-run` prints exactly that, and the inner
//! run parses those very arguments, so what is printed is what runs.

use std::path::{Path, PathBuf};

use clap::Parser as _;

use super::runner::ScenarioWorld;
use crate::cli::{Cli, Command as CliCommand, RunArgs, TargetChoice, EXIT_ERROR, EXIT_PASSED};
use crate::cluster::kind::{self, KindPlan, KindTarget};
use crate::profiles::gating::kind_config_for;
use crate::profiles::{FeatureGates, Profile, Version};
use crate::report;

/// A kind run, decided.
#[derive(Debug)]
pub(crate) struct KindRun {
    /// The commands around the scenarios.
    pub plan: KindPlan,
    /// The kind configuration, filtered for the node image's release.
    pub config: String,
    /// The inner run's arguments (after `kepspec`).
    pub inner: Vec<String>,
}

fn quote(a: &str) -> String {
    if a.is_empty()
        || a.chars()
            .any(|c| c.is_whitespace() || "'\"$*?()&;|<>".contains(c))
    {
        format!("'{}'", a.replace('\'', "'\\''"))
    } else {
        a.to_string()
    }
}

impl KindRun {
    /// Decides a kind run: nothing is executed.
    pub(crate) fn new(args: &RunArgs, profile: &Profile, root: &Path) -> Result<KindRun, String> {
        let target = match &args.target {
            TargetChoice::Bundled => KindTarget::Bundled,
            // Upstream and vendors bring their own controller: nothing to build.
            TargetChoice::Upstream | TargetChoice::Profile(_) => KindTarget::Upstream,
        };
        let kubeconfig = root.join(format!("kind-{}.kubeconfig", args.kind_name));
        let mut plan = KindPlan::new(root, target, &kubeconfig);
        plan.name = args.kind_name.clone();
        plan.reuse = args.reuse_cluster;
        plan.keep = args.keep_cluster;
        plan.node_image = args.node_image.clone();
        if let TargetChoice::Profile(_) = args.target {
            plan.config_override = Some(profile.kind_config());
            plan.install = profile.setup_commands(&kubeconfig, root);
        }
        let image = plan.node_image();
        let version = Version::of_node_image(&image).ok_or_else(|| {
            format!(
                "--node-image {image}: its tag names no Kubernetes version (kindest/node:vX.Y.Z)"
            )
        })?;
        // Gates a release does not know would stop its components from
        // starting: drop them from the configuration for that release.
        let source = plan.config();
        let text = crate::bundle::read_to_string(&source)
            .map_err(|e| format!("{}: {e}", source.display()))?;
        if let Some(problem) = kind::controllers_problem(&text)? {
            return Err(format!("{}: {problem}", source.display()));
        }
        let config = kind_config_for(&text, version)?;
        plan.config_override = Some(
            std::env::temp_dir().join(format!("kepspec-kind-{}-{version}.yaml", args.kind_name)),
        );
        // The gates the cluster will run: those the configuration sets, then
        // what the user said.
        let mut gates = FeatureGates::from_kind_config(&config)?;
        if let Some(spec) = &args.feature_gates {
            gates = gates.overridden_by(&FeatureGates::parse(spec)?);
        }
        let inner = inner_args(args, &kubeconfig, &gates);
        Ok(KindRun {
            plan,
            config,
            inner,
        })
    }

    /// The inner run's command line, as a shell would read it.
    pub(crate) fn inner_line(&self) -> String {
        std::iter::once("kepspec".to_string())
            .chain(self.inner.iter().map(|a| quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The arguments of the run against the kind cluster's kubeconfig: the
/// user's, with the cluster and the gates the kind configuration set.
fn inner_args(args: &RunArgs, kubeconfig: &Path, gates: &FeatureGates) -> Vec<String> {
    let mut out = vec!["run".to_string()];
    out.extend(args.features.iter().map(|p| p.display().to_string()));
    out.push(format!("--cluster=kubeconfig={}", kubeconfig.display()));
    out.push(format!(
        "--target={}",
        super::job::target_label(&args.target)
    ));
    out.push(format!("--concurrency={}", args.concurrency()));
    if args.repeat > 1 {
        out.push(format!("--repeat={}", args.repeat));
    }
    let mut opt = |name: &str, v: &Option<String>| {
        if let Some(v) = v {
            out.push(format!("--{name}={v}"));
        }
    };
    opt("tags", &args.tags);
    opt("name", &args.name);
    opt("shard", &args.shard);
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    opt("junit", &path(&args.junit));
    opt("report", &path(&args.report));
    for r in &args.require {
        out.push(format!("--require={r}"));
    }
    if !gates.is_empty() {
        out.push(format!("--feature-gates={}", gates.to_flag()));
    }
    for (flag, on) in [
        ("--fail-fast", args.fail_fast),
        ("--keep-on-failure", args.keep_on_failure),
        ("--allow-empty", args.allow_empty),
    ] {
        if on {
            out.push(flag.to_string());
        }
    }
    out
}

/// Provisions, runs against the written kubeconfig, tears down.
pub(crate) async fn run<W: ScenarioWorld>(args: &RunArgs, profile: &Profile) -> u8 {
    let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let decided = match KindRun::new(args, profile, &root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return crate::cli::EXIT_ERROR;
        }
    };
    let inner = match Cli::try_parse_from(
        std::iter::once("kepspec".to_string()).chain(decided.inner.iter().cloned()),
    ) {
        Ok(Cli {
            command: CliCommand::Run(inner),
            ..
        }) => inner,
        Ok(_) => {
            eprintln!("error: the inner run's arguments are not a run");
            return EXIT_ERROR;
        }
        Err(e) => {
            eprintln!("error: the inner run's arguments do not parse: {e}");
            return EXIT_ERROR;
        }
    };
    let plan = &decided.plan;
    if args.dry_run {
        if let Some(path) = &plan.config_override {
            println!(
                "# kind configuration for {} ({}):",
                plan.node_image(),
                path.display()
            );
            for line in decided.config.lines() {
                println!("#   {line}");
            }
        }
        for c in plan.setup() {
            println!("{c}    # {}", c.purpose);
        }
        println!("{}    # the scenarios", decided.inner_line());
        for c in plan.teardown(args.report.as_deref()) {
            println!("{c}    # {}", c.purpose);
        }
        return EXIT_PASSED;
    }
    if let Some(path) = &plan.config_override {
        if let Err(e) = std::fs::write(path, &decided.config) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return EXIT_ERROR;
        }
    }
    let target = plan.target;
    if let Err(msg) = kind::check_tools(target, kind::on_path) {
        eprintln!("error: {msg}");
        return EXIT_ERROR;
    }
    if let Some(missing) = profile
        .required_programs()
        .into_iter()
        .find(|p| !kind::on_path(p))
    {
        eprintln!(
            "error: `{missing}` is not installed or not on PATH; the target profile {} needs it",
            profile.name()
        );
        return EXIT_ERROR;
    }
    if let Err(msg) = kind::execute(&plan.setup()) {
        eprintln!("error: {msg}");
        if let Some(dir) = &args.report {
            let _ = std::fs::create_dir_all(dir);
            let _ = report::write_file(&dir.join("setup.log"), &msg);
        }
        save_logs(plan, args.report.as_deref(), true);
        let _ = kind::execute(&plan.teardown(None));
        return EXIT_ERROR;
    }
    let code = Box::pin(super::job::run::<W>(&inner)).await;
    save_logs(plan, args.report.as_deref(), code != EXIT_PASSED);
    if let Err(msg) = kind::execute(&plan.teardown(None)) {
        eprintln!("warning: {msg}");
    }
    code
}

/// Writes the controller's logs into the report folder: the leading
/// replica's as `controller.log`, and every replica's (each line prefixed
/// with its pod) as `controller-replicas.log` when the run failed.
fn save_logs(plan: &KindPlan, report_dir: Option<&Path>, failed: bool) {
    let Some(dir) = report_dir else { return };
    let commands: Vec<kind::Command> = plan
        .teardown(Some(dir))
        .into_iter()
        .filter(|c| c.save_as.is_some())
        .collect();
    if commands.is_empty() {
        return;
    }
    let outputs = match kind::execute(&commands) {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("warning: {msg}");
            return;
        }
    };
    let _ = std::fs::create_dir_all(dir);
    let mut leader = String::new();
    let mut all = String::new();
    for (c, out) in commands.iter().zip(outputs) {
        match c.save_as {
            Some("controller-leader.txt") => leader = out.stdout.trim().to_string(),
            _ => all = out.stdout,
        }
    }
    let prefix = format!("[pod/{leader}/");
    let leader_log: String = all
        .lines()
        .filter(|l| !leader.is_empty() && l.starts_with(&prefix))
        .map(|l| format!("{l}\n"))
        .collect();
    let _ = report::write_file(&dir.join("controller.log"), &leader_log);
    if failed {
        let _ = report::write_file(&dir.join("controller-replicas.log"), &all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ClusterChoice;

    fn args(extra: &[&str]) -> RunArgs {
        let argv = ["kepspec", "run", "--cluster", "kind"]
            .iter()
            .copied()
            .chain(extra.iter().copied());
        match Cli::try_parse_from(argv).unwrap().command {
            CliCommand::Run(a) => *a,
            _ => unreachable!(),
        }
    }

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_inner_run_gets_the_gates_of_the_filtered_config_and_every_user_option() {
        let a = args(&[
            "--target",
            "upstream",
            "--node-image",
            "kindest/node:v1.36.4",
            "--tags",
            "@kep-961",
            "--shard",
            "1/2",
            "--require",
            "@kep-961",
            "--junit",
            "out/junit.xml",
            "--report",
            "out",
        ]);
        let run = KindRun::new(&a, &Profile::upstream(), &root()).unwrap();
        assert!(
            !run.config.contains("StatefulSetRecreateStrategy"),
            "{}",
            run.config
        );
        let line = run.inner_line();
        assert!(
            line.contains("--feature-gates=MaxUnavailableStatefulSet=true"),
            "{line}"
        );
        for part in [
            "--target=upstream",
            "--tags=@kep-961",
            "--shard=1/2",
            "--require=@kep-961",
            "--junit=out/junit.xml",
            "--report=out",
        ] {
            assert!(line.contains(part), "{part}: {line}");
        }
        // What is printed parses back into the run that is executed.
        let parsed =
            Cli::try_parse_from(std::iter::once("kepspec".to_string()).chain(run.inner.clone()))
                .unwrap();
        let CliCommand::Run(inner) = parsed.command else {
            panic!()
        };
        assert_eq!(
            inner.feature_gates.as_deref(),
            Some("MaxUnavailableStatefulSet=true")
        );
        assert!(matches!(inner.cluster, ClusterChoice::Kubeconfig(Some(_))));
    }

    #[test]
    fn without_a_node_image_the_pinned_default_is_used_and_filtered_for() {
        let run = KindRun::new(&args(&[]), &Profile::bundled(), &root()).unwrap();
        assert_eq!(run.plan.node_image(), kind::DEFAULT_NODE_IMAGE);
        assert!(run.config.contains("StatefulSetRecreateStrategy"));
        assert!(run.inner_line().contains(
            "--feature-gates=MaxUnavailableStatefulSet=true,StatefulSetRecreateStrategy=true"
        ));
        let create = run.plan.setup()[0].to_string();
        assert!(
            create.contains(&format!("--image {}", kind::DEFAULT_NODE_IMAGE)),
            "{create}"
        );
        assert!(
            create.contains("kepspec-kind-kepspec-v1.37.0.yaml"),
            "{create}"
        );
    }

    #[test]
    fn a_reused_bundled_cluster_is_checked_and_kept() {
        let run = KindRun::new(&args(&["--reuse-cluster"]), &Profile::bundled(), &root()).unwrap();
        let setup = run.plan.setup();
        assert!(setup[1].expect.is_some(), "{:?}", setup[1]);
        assert!(run.plan.teardown(None).iter().all(|c| c.program != "kind"));
    }

    #[test]
    fn a_node_image_without_a_version_is_an_input_error() {
        let err = KindRun::new(
            &args(&["--node-image", "localhost:5000/node"]),
            &Profile::bundled(),
            &root(),
        )
        .unwrap_err();
        assert!(err.contains("names no Kubernetes version"), "{err}");
    }
}
