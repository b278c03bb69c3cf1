//! The `kepspec` command line: its options, parsed and checked without
//! touching any cluster, so every option can be tested.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::run::throttle::Concurrency;

/// Exit code: every scenario passed.
pub const EXIT_PASSED: u8 = 0;
/// Exit code: at least one scenario failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad usage, bad input (feature files, profiles) or an unreachable cluster.
pub const EXIT_ERROR: u8 = 2;

/// kepspec: the executable specification of StatefulSet update semantics
/// (KEP-3541 Recreate, KEP-961 maxUnavailable and the base guarantees).
#[derive(Debug, Parser)]
#[command(name = "kepspec", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Log more: -v for info, -vv for debug (kepspec's own lines).
    #[arg(short, long, global = true, action = clap::ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Log errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// A log filter (tracing's env-filter syntax, e.g. `kepspec=debug,kube=warn`);
    /// overrides -v and -q. $KEPSPEC_LOG overrides it in turn.
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_level: Option<String>,
}

/// The default log filter: warnings and errors of kepspec itself; the
/// client library's connection errors while a cluster shuts down and the
/// node simulator's are noise.
const QUIET_NOISE: &str = "kube_client::client::builder=off,kepspec_cluster::nodes=error";

impl Cli {
    /// The log filter the options ask for.
    pub fn log_filter(&self) -> String {
        if let Some(filter) = &self.log_level {
            return filter.clone();
        }
        let level = if self.quiet {
            "error"
        } else {
            match self.verbose {
                0 => "warn",
                1 => "warn,kepspec=info,kepspec_controller=info,kepspec_cluster=info",
                _ => "warn,kepspec=debug,kepspec_controller=debug,kepspec_cluster=debug",
            }
        };
        format!("{level},{QUIET_NOISE}")
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the specification (every feature under features/ by default).
    Run(Box<RunArgs>),
    /// List features, scenarios and tags.
    List(ListArgs),
    /// Check feature files: syntax, undefined and ambiguous steps.
    Lint(LintArgs),
    /// Manage a cluster.
    Cluster {
        /// What to do with it.
        #[command(subcommand)]
        command: ClusterCommand,
    },
    /// Run the bundled StatefulSet controller against a cluster.
    Controller(ControllerArgs),
    /// Rerun one scenario with a controller crash (or a failed request)
    /// after each of its writes in turn, and report which points break what.
    Explore(ExploreArgs),
    /// Measure the embedded cluster, the controller and the harness; print a Markdown report.
    Bench(BenchArgs),
    /// The step catalogue: every step the features can use, with its
    /// parameters and the call it makes.
    Steps(StepsArgs),
    /// Check that every quotation of the features occurs, word for word,
    /// under its heading in the source it cites (the texts are read from
    /// --sources DIR or $KEPSPEC_SOURCES).
    Cite(CiteArgs),
    /// The specification bundled in this binary.
    Spec {
        /// What to do with it.
        #[command(subcommand)]
        command: SpecCommand,
    },
    /// Wait for something on a cluster.
    Wait {
        /// What to wait for.
        #[command(subcommand)]
        command: WaitCommand,
    },
}

/// `kepspec wait ...`
#[derive(Clone, Debug, Subcommand)]
pub enum WaitCommand {
    /// Wait until an apps/v1 StatefulSet's rollout is complete, whatever its
    /// update strategy (`kubectl rollout status` refuses Recreate and
    /// OnDelete sets). Exit 0 when complete, 1 on timeout, 2 for input
    /// errors (a set that does not exist, a kubeconfig that cannot be read).
    Rollout(WaitRolloutArgs),
}

/// `kepspec wait rollout`
#[derive(Clone, Debug, Args)]
pub struct WaitRolloutArgs {
    /// The StatefulSet: NAME or statefulset/NAME.
    pub name: String,
    /// Its namespace.
    #[arg(short, long, default_value = "default")]
    pub namespace: String,
    /// Give up after this long: 90s, 5m, 1h or a number of seconds.
    #[arg(long, default_value = "5m", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// The kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then the
    /// in-cluster service account).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (default: its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
}

/// `90s`, `5m`, `1h` or plain seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let (number, unit) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a duration: expected e.g. 90s, 5m or 1h"))?;
    let secs = match unit {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        _ => {
            return Err(format!(
                "`{s}` is not a duration: expected e.g. 90s, 5m or 1h"
            ))
        }
    };
    if secs == 0 {
        return Err("the timeout must be at least one second".into());
    }
    Ok(std::time::Duration::from_secs(secs))
}

/// `kepspec lint`
#[derive(Clone, Debug, Args)]
pub struct LintArgs {
    /// Feature files or folders (default: features/). With -v, also lists
    /// the step definitions no feature uses.
    pub features: Vec<PathBuf>,
}

/// `kepspec steps`
#[derive(Clone, Debug, Args)]
pub struct StepsArgs {
    /// Print the catalogue as Markdown tables (one per step file).
    #[arg(long)]
    pub markdown: bool,
    /// With --markdown: write it into this page after its
    /// `<!-- generated: steps -->` line instead of printing it.
    #[arg(long, value_name = "PAGE", requires = "markdown")]
    pub into: Option<PathBuf>,
}

/// `kepspec cite`
#[derive(Clone, Debug, Args)]
pub struct CiteArgs {
    /// Feature files or folders (default: features/).
    pub features: Vec<PathBuf>,
    /// The folder of the source texts, each under its `file` name in
    /// spec/sources.yaml (default: $KEPSPEC_SOURCES).
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
}

/// `kepspec spec ...`
#[derive(Clone, Debug, Subcommand)]
pub enum SpecCommand {
    /// Write the bundled spec (features, target profiles, CRDs, kind
    /// configurations, manifests, coverage catalogues) into DIR, for reading
    /// or editing; `kepspec run DIR/features` then runs the copy.
    Export(SpecExportArgs),
}

/// `kepspec spec export`
#[derive(Clone, Debug, Args)]
pub struct SpecExportArgs {
    /// The folder to write into (created when missing).
    pub dir: PathBuf,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
}

/// `kepspec bench`
#[derive(Clone, Debug, Args)]
pub struct BenchArgs {
    /// Fewer iterations and sizes (a smoke test of every benchmark).
    #[arg(long)]
    pub quick: bool,
    /// Only these benchmarks (comma-separated names, e.g. `startup,memory`).
    #[arg(long)]
    pub only: Option<String>,
    /// Also write the report to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Another kepspec binary (e.g. the previous commit's release build):
    /// the whole-spec benchmark runs it too, alternating with this one, and
    /// states this build's wall and CPU time as a ratio of its.
    #[arg(long, value_name = "BINARY")]
    pub baseline: Option<PathBuf>,
    /// Where the baseline runs (its own checkout, whose `features/` it was
    /// built for); the current directory when not given. The ratio of CPU
    /// per scenario then compares the two builds each on its own spec.
    #[arg(long, value_name = "DIR", requires = "baseline")]
    pub baseline_dir: Option<PathBuf>,
    /// Runs of the whole spec per binary; the report gives the median.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
}

/// `kepspec explore`
#[derive(Clone, Debug, Args)]
pub struct ExploreArgs {
    /// Feature files or folders holding the scenario (default: features/faults).
    pub features: Vec<PathBuf>,
    /// The scenario: a regex that must select exactly one scenario.
    #[arg(long)]
    pub name: String,
    /// Instead of crashing the controller, fail its write with this code (409, 429, 500, 503).
    #[arg(long, value_name = "CODE")]
    pub fail: Option<u16>,
}

/// `kepspec cluster ...`
#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Start the embedded cluster and keep it running until Ctrl-C.
    Up(ClusterUpArgs),
}

/// Where scenarios run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterChoice {
    /// The embedded cluster, started in-process.
    Embedded,
    /// An existing cluster from a kubeconfig (None: the default lookup).
    Kubeconfig(Option<PathBuf>),
    /// A kind cluster.
    Kind,
}

impl std::str::FromStr for ClusterChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "embedded" => Ok(Self::Embedded),
            "kind" => Ok(Self::Kind),
            "kubeconfig" => Ok(Self::Kubeconfig(None)),
            _ => match s.strip_prefix("kubeconfig=") {
                Some(path) if !path.is_empty() => Ok(Self::Kubeconfig(Some(PathBuf::from(path)))),
                _ => Err(format!(
                    "unknown cluster `{s}`: expected embedded, kubeconfig[=PATH] or kind"
                )),
            },
        }
    }
}

/// The implementation under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetChoice {
    /// The bundled controller (started in-process on the embedded cluster).
    Bundled,
    /// Upstream kube-controller-manager, already running in the cluster.
    Upstream,
    /// A vendor profile file.
    Profile(PathBuf),
}

impl std::str::FromStr for TargetChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bundled" => Ok(Self::Bundled),
            "upstream" => Ok(Self::Upstream),
            p if p.ends_with(".yaml") || p.ends_with(".yml") => Ok(Self::Profile(PathBuf::from(p))),
            // A profile shipped with the spec, by name.
            name if crate::bundle::get(&shipped_profile(name)).is_some() => {
                Ok(Self::Profile(shipped_profile(name)))
            }
            _ => Err(format!(
                "unknown target `{s}`: expected bundled, upstream, a PROFILE.yaml or the name of a shipped profile ({})",
                shipped_profiles().join(", ")
            )),
        }
    }
}

/// Where the profile shipped under this name is (`clusters/targets/NAME.yaml`).
fn shipped_profile(name: &str) -> PathBuf {
    PathBuf::from(format!("clusters/targets/{name}.yaml"))
}

/// The names of the profiles shipped with the spec.
fn shipped_profiles() -> Vec<String> {
    crate::bundle::under(std::path::Path::new("clusters/targets"))
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

/// `kepspec run`
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// Feature files or folders (default: features/, which is ./features
    /// when there is one, else the spec bundled in the binary); FILE:LINE
    /// (or FILE:LINE:LINE...) runs the scenarios or examples at those lines,
    /// as the output prints them.
    pub features: Vec<PathBuf>,
    /// embedded, kubeconfig[=PATH] or kind.
    #[arg(long, default_value = "embedded")]
    pub cluster: ClusterChoice,
    /// With --cluster kubeconfig: the kubeconfig context to use (default:
    /// its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// bundled, upstream, PROFILE.yaml, or a shipped profile's name
    /// (e.g. openkruise-advanced-statefulset).
    #[arg(long, default_value = "bundled")]
    pub target: TargetChoice,
    /// Tag expression, e.g. `@kep-3541 and not @validation`; a tag no
    /// feature or scenario has is an input error.
    #[arg(long)]
    pub tags: Option<String>,
    /// Only scenarios whose name matches this regex.
    #[arg(long)]
    pub name: Option<String>,
    /// Scenarios run at once: a count, or `auto` (the default on the
    /// embedded cluster: 16, and up to 64 while the machine's cores are less
    /// than 85 % busy); 8 on any other cluster.
    #[arg(long, value_name = "N|auto")]
    pub concurrency: Option<Concurrency>,
    /// Run the selection this many times (flake hunting); the rounds run
    /// concurrently, up to --concurrency scenarios at once.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    pub repeat: usize,
    /// Let a run that runs no scenario (nothing selected, or everything
    /// skipped) pass; by default it fails, so a typo in --tags cannot go green.
    #[arg(long)]
    pub allow_empty: bool,
    /// Fail the run unless at least one scenario this tag expression selects
    /// ran (not skipped), e.g. `--require @kep-3541`; may be repeated.
    #[arg(long, value_name = "EXPR")]
    pub require: Vec<String>,
    /// Stop at the first failed scenario.
    #[arg(long)]
    pub fail_fast: bool,
    /// Write JUnit XML here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the HTML report, JSON result and failure artifacts here.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Keep the recorded history of passing scenarios too in result.json and
    /// the HTML report (by default only failed scenarios keep theirs).
    #[arg(long)]
    pub keep_timelines: bool,
    /// Append a Markdown summary (failures first) to this file, e.g.
    /// `$GITHUB_STEP_SUMMARY`.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Keep the namespaces of failed scenarios.
    #[arg(long)]
    pub keep_on_failure: bool,
    /// Run shard I of N (1-based), e.g. `2/3`: a stable split of the
    /// scenarios over N CI jobs.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Print every command a kind run would execute, and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// kind: the cluster's name.
    #[arg(long, default_value = "kepspec")]
    pub kind_name: String,
    /// kind: use an existing cluster of that name instead of creating one.
    #[arg(long)]
    pub reuse_cluster: bool,
    /// kind: keep the cluster afterwards.
    #[arg(long)]
    pub keep_cluster: bool,
    /// kind: the node image (a Kubernetes version), e.g. kindest/node:v1.37.0.
    #[arg(long)]
    pub node_image: Option<String>,
    /// The Kubernetes version the embedded cluster plays (default v1.37.0):
    /// what `/version` answers and which feature gates exist (each one the
    /// release has is on unless `--feature-gates` turns it off). A real
    /// cluster reports its own version.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub kube_version: Option<crate::profiles::Version>,
    /// Feature gates, `A=true,B=false`. Embedded cluster: the apiserver's
    /// and the bundled controller's. Real cluster: what the run assumes of
    /// the cluster, overriding what it reads from kube-apiserver's /metrics
    /// (use it when /metrics is not readable, or when kube-controller-manager
    /// runs other gates than kube-apiserver).
    #[arg(long, value_name = "GATES")]
    pub feature_gates: Option<String>,
}

/// `kepspec list`
#[derive(Clone, Debug, Args)]
pub struct ListArgs {
    /// Feature files or folders (default: features/).
    pub features: Vec<PathBuf>,
    /// `list`: print a Markdown table (scenario, the clause it encodes, tags).
    #[arg(long)]
    pub markdown: bool,
    /// `list`: print the coverage map (every seed promise and every upstream
    /// StatefulSet test, with the scenarios that cover it or why none does);
    /// exit 1 when an entry is neither covered nor explained.
    #[arg(long, conflicts_with = "markdown")]
    pub coverage: bool,
    /// `list --markdown`: write the table into this page after its
    /// `<!-- generated: catalogue -->` line instead of printing it.
    #[arg(long, value_name = "PAGE", requires = "markdown")]
    pub into: Option<PathBuf>,
}

/// A Kubernetes version such as `v1.36.4`.
fn parse_version(text: &str) -> Result<crate::profiles::Version, String> {
    crate::profiles::Version::parse(text)
}

/// `kepspec cluster up`
#[derive(Clone, Debug, Args)]
pub struct ClusterUpArgs {
    /// The Kubernetes version the cluster plays (default v1.37.0): what
    /// `/version` answers, which feature gates exist (each one the release
    /// has is on unless `--feature-gates` turns it off), and what `/metrics`
    /// reports of them.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub kube_version: Option<crate::profiles::Version>,
    /// Where to write the kubeconfig.
    #[arg(long, default_value = "kepspec.kubeconfig")]
    pub kubeconfig: PathBuf,
    /// apiserver feature gates, e.g. `StatefulSetRecreateStrategy=false`.
    #[arg(long)]
    pub feature_gates: Option<String>,
    /// Also run the bundled controller in the cluster.
    #[arg(long)]
    pub with_controller: bool,
}

pub use kepspec_controller::command::ControllerArgs;

/// A count of at least one.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

impl RunArgs {
    /// The feature paths to run: the ones given, or `features/`.
    pub fn feature_paths(&self) -> Vec<PathBuf> {
        crate::run::features::or_default(&self.features)
    }

    /// Scenarios at once: as given, else paced on the embedded cluster (its
    /// scenarios mostly wait on real seconds, and a fixed number either
    /// leaves the cores idle or, in a debug build or a long `--repeat`,
    /// overloads them: see [`Concurrency::EMBEDDED`] and the benchmarks in
    /// docs/src/benchmarks.md) and 8 on a real cluster, whose nodes do real
    /// work.
    pub fn concurrency(&self) -> Concurrency {
        self.concurrency.unwrap_or(match self.cluster {
            ClusterChoice::Embedded => Concurrency::EMBEDDED,
            _ => Concurrency::Fixed(8),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("kepspec").chain(args.iter().copied()))
    }

    #[test]
    fn run_defaults_to_the_whole_spec_on_the_embedded_cluster() {
        let Command::Run(args) = parse(&["run"]).unwrap().command else {
            panic!("not run")
        };
        assert_eq!(args.cluster, ClusterChoice::Embedded);
        assert_eq!(args.target, TargetChoice::Bundled);
        let cli = Cli::try_parse_from(["kepspec", "run", "-vv"]).unwrap();
        assert!(cli.log_filter().contains("kepspec=debug"));
        let cli = Cli::try_parse_from(["kepspec", "-q", "run"]).unwrap();
        assert!(cli.log_filter().starts_with("error,"));
        let cli = Cli::try_parse_from(["kepspec", "run", "--log-level", "kepspec=trace"]).unwrap();
        assert_eq!(cli.log_filter(), "kepspec=trace");
        assert!(Cli::try_parse_from(["kepspec", "run", "-q", "-v"]).is_err());
        assert_eq!(args.feature_paths(), vec![PathBuf::from("features")]);
        assert_eq!(args.repeat, 1);
    }

    #[test]
    fn cluster_and_target_choices_parse() {
        let Command::Run(args) = parse(&[
            "run",
            "--cluster",
            "kubeconfig=/tmp/kc",
            "--target",
            "clusters/targets/x.yaml",
        ])
        .unwrap()
        .command
        else {
            panic!("not run")
        };
        assert_eq!(
            args.cluster,
            ClusterChoice::Kubeconfig(Some(PathBuf::from("/tmp/kc")))
        );
        assert_eq!(
            args.target,
            TargetChoice::Profile(PathBuf::from("clusters/targets/x.yaml"))
        );
        assert!(parse(&["run", "--cluster", "docker"]).is_err());
        assert!(parse(&["run", "--target", "kruise"]).is_err());
    }
}
