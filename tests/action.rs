//! The GitHub Action (action.yml), its script (ci/action.sh) and the runner
//! image recipe (clusters/runner.Dockerfile), without GitHub or Docker: the
//! script's dry run prints the commands of a phase and runs none, and the
//! `kepspec run` it prints parses as kepspec's command line, for a sample
//! row and for every row of ci/github-actions.yml; action.yml declares and
//! passes every input the script reads; the image installs kepspec, kubectl
//! and kind, with the kind release the workflow and the action pin.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kepspec::cli::{Cli, ClusterChoice, Command as CliCommand, RunArgs, TargetChoice};
use serde_json::Value;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn yaml(rel: &str) -> Value {
    kepspec::yaml::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The variable an input reaches the script as: `kind-version` is `INPUT_KIND_VERSION`.
fn env_name(input: &str) -> String {
    format!("INPUT_{}", input.to_uppercase().replace('-', "_"))
}

/// A temporary workspace, by its canonical path (the script resolves
/// relative paths against `pwd -P`).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().canonicalize().expect("a canonical path");
    (dir, path)
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `bash ci/action.sh PHASE` as a dry run, started in `workspace`, with the
/// action's checkout at the repository root and no INPUT_*, GITHUB_* or
/// RUNNER_* variable but the ones given.
fn dry_run(phase: &str, workspace: &Path, vars: &[(String, String)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("ci/action.sh"))
        .arg(phase)
        .current_dir(workspace);
    for (key, _) in std::env::vars_os() {
        let inherited = key.to_str().is_some_and(|k| {
            ["INPUT_", "GITHUB_", "RUNNER_", "KEPSPEC_ACTION_"]
                .iter()
                .any(|p| k.starts_with(p))
        });
        if inherited {
            cmd.env_remove(key);
        }
    }
    cmd.env("KEPSPEC_ACTION_DRY_RUN", "1")
        .env("GITHUB_ACTION_PATH", repo());
    for (key, value) in vars {
        cmd.env(key, value);
    }
    cmd.output().expect("bash runs")
}

fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Splits a line printed with printf %q back into its words: words are
/// separated by unescaped blanks, a backslash takes the next character
/// literally, and '...' quotes. (%q writes $'...' only for control
/// characters, which no input here has.)
fn unquote(line: &str) -> Vec<String> {
    assert!(
        !line.contains("$'"),
        "$'...' quoting is not read here: {line}"
    );
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            '\'' => {
                in_word = true;
                for next in chars.by_ref() {
                    if next == '\'' {
                        break;
                    }
                    word.push(next);
                }
            }
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The printed commands, each split into its words.
fn commands(out: &Output) -> Vec<Vec<String>> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .map(|line| {
            let command = line
                .strip_prefix("+ ")
                .unwrap_or_else(|| panic!("a dry run prints only `+ ` lines: {line}"));
            unquote(command)
        })
        .collect()
}

/// The printed `kepspec run ...`, with `kepspec` first.
fn kepspec_run(out: &Output) -> Vec<String> {
    commands(out)
        .into_iter()
        .find(|words| {
            words.first().is_some_and(|w| w == "kepspec")
                && words.get(1).is_some_and(|w| w == "run")
        })
        .unwrap_or_else(|| panic!("no `+ kepspec run` in {out:?}"))
}

fn parse_run(words: &[String]) -> RunArgs {
    match <Cli as clap::Parser>::try_parse_from(words) {
        Ok(Cli {
            command: CliCommand::Run(run),
            ..
        }) => *run,
        Ok(other) => panic!("not `kepspec run`: {other:?}"),
        Err(e) => panic!("kepspec rejects {words:?}: {e}"),
    }
}

/// The value after `--flag` in a command line.
fn option<'a>(words: &'a [String], flag: &str) -> Option<&'a str> {
    let at = words.iter().position(|w| w == flag)?;
    words.get(at + 1).map(String::as_str)
}

fn assert_ok(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

const IMAGE: &str =
    "kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5";

#[test]
fn the_dry_run_prints_a_kepspec_run_the_command_line_accepts() {
    let (_dir, ws) = workspace();
    let summary = ws.join("step-summary.md");
    let outputs = ws.join("github-output");
    let path_file = ws.join("github-path");
    let runner_temp = ws.join("runner-temp");
    let mut env = vars(&[
        ("INPUT_KUBERNETES_VERSION", "v1.37.0"),
        ("INPUT_NODE_IMAGE", IMAGE),
        ("INPUT_TARGET", "upstream"),
        ("INPUT_TAGS", "@kep-3541 and not @validation"),
        ("INPUT_REQUIRE", "@base @kep-3541"),
        ("INPUT_SHARD", "2/3"),
        ("INPUT_JUNIT", "kepspec-report/junit.xml"),
        ("INPUT_REPORT", "kepspec-report"),
        ("INPUT_KIND_VERSION", "v0.33.0"),
        ("INPUT_SOURCE", ""),
    ]);
    env.extend(vars(&[
        ("GITHUB_STEP_SUMMARY", text(&summary)),
        ("GITHUB_OUTPUT", text(&outputs)),
        ("GITHUB_PATH", text(&path_file)),
        ("RUNNER_TEMP", text(&runner_temp)),
    ]));
    let tools = runner_temp.join("kepspec-action");
    let bin = tools.join("bin");

    // install: kepspec from the action's checkout, the pinned kind, the
    // tools' folder on PATH for the later steps.
    let install = dry_run("install", &ws, &env);
    assert_ok(&install);
    let printed = commands(&install);
    let cargo = printed
        .iter()
        .find(|w| w.first().is_some_and(|p| p == "cargo"))
        .unwrap_or_else(|| panic!("no cargo install in {printed:?}"));
    assert_eq!(&cargo[1..3], ["install", "--locked"]);
    assert_eq!(option(cargo, "--path"), Some(text(repo())));
    assert_eq!(option(cargo, "--root"), Some(text(&tools)));
    assert!(
        printed
            .iter()
            .any(|w| w.first().is_some_and(|p| p == "curl")
                && w.last().is_some_and(|url| {
                    url.starts_with("https://kind.sigs.k8s.io/dl/v0.33.0/kind-linux-")
                })),
        "{printed:?}"
    );
    assert!(
        printed
            .iter()
            .any(|w| w.first().is_some_and(|p| p == "sha256sum")),
        "{printed:?}"
    );
    let on_path = ["printf", "%s\\n", text(&bin), ">>", text(&path_file)];
    assert!(printed.iter().any(|w| *w == on_path), "{printed:?}");

    // run: in the action's checkout, with the paths of the workspace.
    let run = dry_run("run", &ws, &env);
    assert_ok(&run);
    let printed = commands(&run);
    assert!(
        printed.iter().any(|w| *w == ["cd", text(repo())]),
        "{printed:?}"
    );
    let junit = ws.join("kepspec-report/junit.xml");
    let report = ws.join("kepspec-report");
    for output in [
        format!("junit={}", junit.display()),
        format!("report={}", report.display()),
    ] {
        assert!(
            printed
                .iter()
                .any(|w| w.contains(&output) && w.last().is_some_and(|f| f == text(&outputs))),
            "{output}: {printed:?}"
        );
    }
    let words = kepspec_run(&run);
    let args = parse_run(&words);
    assert_eq!(args.cluster, ClusterChoice::Kind);
    assert_eq!(args.target, TargetChoice::Upstream);
    assert_eq!(args.node_image.as_deref(), Some(IMAGE));
    assert_eq!(args.tags.as_deref(), Some("@kep-3541 and not @validation"));
    assert_eq!(args.require, ["@base", "@kep-3541"]);
    assert_eq!(args.shard.as_deref(), Some("2/3"));
    assert_eq!(args.junit, Some(junit));
    assert_eq!(args.report, Some(report));
    assert_eq!(args.summary.as_deref(), Some(summary.as_path()));

    // Nothing ran: no file was written or made.
    for file in [&summary, &outputs, &path_file, &runner_temp] {
        assert!(!file.exists(), "the dry run made {}", file.display());
    }
}

#[test]
fn defaults_and_a_profile_of_the_workspace_become_options() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("my-controller.yaml"), "# a profile\n").expect("a fixture");
    let env = vars(&[
        ("INPUT_KUBERNETES_VERSION", "v1.36.4"),
        ("INPUT_TARGET", "my-controller.yaml"),
        ("INPUT_REQUIRE", "@base\n@kep-961 and not @slow\n"),
    ]);
    let run = dry_run("run", &ws, &env);
    assert_ok(&run);
    let words = kepspec_run(&run);
    let args = parse_run(&words);
    assert_eq!(args.node_image.as_deref(), Some("kindest/node:v1.36.4"));
    assert_eq!(
        args.target,
        TargetChoice::Profile(ws.join("my-controller.yaml"))
    );
    assert_eq!(args.require, ["@base", "@kep-961 and not @slow"]);
    // Empty inputs are left out.
    assert_eq!((args.tags, args.shard, args.junit), (None, None, None));
    assert!(args.report.is_none() && args.summary.is_none(), "{words:?}");
}

#[test]
fn a_missing_input_or_an_unknown_phase_exits_2() {
    let (_dir, ws) = workspace();
    for phase in ["install", "run"] {
        let out = dry_run(phase, &ws, &vars(&[("INPUT_KIND_VERSION", "v0.33.0")]));
        assert_eq!(out.status.code(), Some(2), "{phase}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("`kubernetes-version`"), "{phase}: {stderr}");
        assert!(out.stdout.is_empty(), "{phase}: {out:?}");
    }
    let out = dry_run("run", &ws, &vars(&[("INPUT_KUBERNETES_VERSION", "1.37.0")]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("`kubernetes-version`"));
    let out = dry_run(
        "install",
        &ws,
        &vars(&[("INPUT_KUBERNETES_VERSION", "v1.37.0")]),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("`kind-version`"));
    let out = dry_run(
        "run",
        &ws,
        &vars(&[
            ("INPUT_KUBERNETES_VERSION", "v1.37.0"),
            ("INPUT_SHARD", "2"),
        ]),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("`shard`"));
    for phase in ["deploy", ""] {
        let out = dry_run(phase, &ws, &[]);
        assert_eq!(out.status.code(), Some(2), "{phase:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("unknown phase"));
    }
}

#[test]
fn action_yml_declares_and_passes_every_input_the_script_reads() {
    let script = read("ci/action.sh");
    let pattern = regex::Regex::new(r"INPUT_[A-Z0-9_]+").expect("a regex");
    let read_by_script: BTreeSet<String> = pattern
        .find_iter(&script)
        .map(|m| m.as_str().to_string())
        .collect();
    let action = yaml("action.yml");
    assert!(action["name"].as_str().is_some_and(|n| n == "kepspec"));
    assert!(action["description"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    assert_eq!(action["runs"]["using"], "composite");
    let inputs = action["inputs"].as_object().expect("inputs");
    let declared: BTreeSet<String> = inputs.keys().map(|k| env_name(k.as_str())).collect();
    assert_eq!(
        read_by_script, declared,
        "ci/action.sh reads / action.yml declares"
    );
    for (name, input) in inputs {
        assert!(
            input["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}: no description"
        );
    }
    assert_eq!(
        inputs["kubernetes-version"]["required"].as_bool(),
        Some(true)
    );
    assert_eq!(inputs["target"]["default"], "bundled");
    assert_eq!(inputs["junit"]["default"], "kepspec-report/junit.xml");
    assert_eq!(inputs["report"]["default"], "kepspec-report");

    // Each step runs a phase of the script with INPUT_X set from input x.
    let mut passed = BTreeSet::new();
    let mut phases = Vec::new();
    for step in action["runs"]["steps"].as_array().expect("steps") {
        assert_eq!(step["shell"], "bash", "{step}");
        let run = step["run"].as_str().expect("a run step");
        let phase = run
            .strip_prefix("bash \"$GITHUB_ACTION_PATH/ci/action.sh\" ")
            .unwrap_or_else(|| panic!("not a phase of ci/action.sh: {run}"));
        phases.push(phase.trim().to_string());
        for (var, value) in step["env"].as_object().into_iter().flatten() {
            let Some(input) = var.strip_prefix("INPUT_") else {
                continue;
            };
            let expected = format!(
                "${{{{ inputs.{} }}}}",
                input.to_lowercase().replace('_', "-")
            );
            assert_eq!(value.as_str(), Some(expected.as_str()), "{var}");
            passed.insert(var.clone());
        }
    }
    assert_eq!(phases, ["install", "run"]);
    assert_eq!(passed, declared, "passed by action.yml's steps / declared");
    for output in ["junit", "report"] {
        assert_eq!(
            action["outputs"][output]["value"].as_str(),
            Some(format!("${{{{ steps.run.outputs.{output} }}}}").as_str()),
            "{output}"
        );
    }
}

/// The rows of a matrix, as GitHub expands it: every combination of the
/// lists, then each `include` entry added to the combinations whose values
/// it agrees with (or, agreeing with none, a row of its own).
fn matrix_rows(matrix: &Value) -> Vec<BTreeMap<String, String>> {
    assert!(matrix.get("exclude").is_none(), "exclude is not read here");
    let scalar = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut keys = Vec::new();
    let mut rows = vec![BTreeMap::new()];
    for (key, values) in matrix.as_object().into_iter().flatten() {
        let Some(values) = values.as_array().filter(|_| key != "include") else {
            continue;
        };
        keys.push(key.clone());
        rows = rows
            .into_iter()
            .flat_map(|row| {
                values.iter().map(move |v| {
                    let mut row = row.clone();
                    row.insert(key.clone(), scalar(v));
                    row
                })
            })
            .collect();
    }
    for entry in matrix["include"].as_array().into_iter().flatten() {
        let entry: BTreeMap<String, String> = entry
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), scalar(v)))
            .collect();
        let mut matched = false;
        for row in &mut rows {
            let agrees = entry
                .iter()
                .filter(|(k, _)| keys.contains(k))
                .all(|(k, v)| row.get(k) == Some(v));
            if agrees {
                matched = true;
                for (k, v) in &entry {
                    if !keys.contains(k) {
                        row.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        if !matched {
            rows.push(entry);
        }
    }
    rows
}

/// `${{ matrix.KEY }}` and `${{ env.KEY }}` replaced as GitHub would (a
/// missing key is empty); any other expression fails the test.
fn expand(text: &str, row: &BTreeMap<String, String>, env: &Value) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*(matrix|env)\.([A-Za-z0-9_-]+)\s*\}\}").expect("a regex");
    let out = re
        .replace_all(text, |c: &regex::Captures| match &c[1] {
            "matrix" => row.get(&c[2]).cloned().unwrap_or_default(),
            _ => env[&c[2]].as_str().unwrap_or_default().to_string(),
        })
        .into_owned();
    assert!(!out.contains("${{"), "an expression not read here: {text}");
    out
}

#[test]
fn every_row_of_the_workflow_runs_a_kepspec_run_the_command_line_accepts() {
    let workflow = yaml("ci/github-actions.yml");
    let action = yaml("action.yml");
    let mut checked = 0;
    for (job_name, job) in workflow["jobs"].as_object().expect("jobs") {
        let steps = job["steps"].as_array().expect("steps");
        let Some(step) = steps.iter().find(|s| s["uses"] == "./") else {
            continue;
        };
        let with = step["with"].as_object().expect("the action's inputs");
        for key in with.keys() {
            assert!(
                action["inputs"].get(key).is_some(),
                "{job_name}: action.yml has no input `{key}`"
            );
        }
        // The workflow uploads the folder the action writes the report to.
        let upload = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
            })
            .expect("the report is uploaded");
        assert!(upload["if"]
            .as_str()
            .is_some_and(|c| c.contains("always()")));
        assert_eq!(upload["with"]["path"], with["report"], "{job_name}");

        let matrix = &job["strategy"]["matrix"];
        let shards: Vec<String> = matrix["shard"]
            .as_array()
            .expect("shards")
            .iter()
            .map(Value::to_string)
            .collect();
        for row in matrix_rows(matrix) {
            let (_dir, ws) = workspace();
            let mut env: Vec<(String, String)> = with
                .iter()
                .map(|(k, v)| {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    (env_name(k), expand(&v, &row, &workflow["env"]))
                })
                .collect();
            env.push((
                "GITHUB_STEP_SUMMARY".into(),
                text(&ws.join("summary.md")).into(),
            ));
            let out = dry_run("run", &ws, &env);
            assert_ok(&out);
            let words = kepspec_run(&out);
            let args = parse_run(&words);
            let name = format!("{job_name} {row:?}");
            assert_eq!(args.cluster, ClusterChoice::Kind, "{name}");
            let target: TargetChoice = row["target"].parse().expect("a target");
            assert_eq!(args.target, target, "{name}");
            let kubernetes = &row["kubernetes"];
            assert!(
                args.node_image
                    .as_deref()
                    .is_some_and(|i| i.starts_with(&format!("kindest/node:{kubernetes}@sha256:"))),
                "{name}: node image pinned by digest"
            );
            let require: Vec<&str> = row["require"].split_whitespace().collect();
            assert!(!require.is_empty(), "{name}: a row must require something");
            assert_eq!(args.require, require, "{name}");
            // Shard I of N, with 1..=N the matrix's shards.
            let shard = args.shard.as_deref().expect("sharded");
            let (i, n) = shard.split_once('/').expect("I/N");
            let all: Vec<String> = (1..=n.parse::<u64>().expect("N"))
                .map(|s| s.to_string())
                .collect();
            assert_eq!(shards, all, "{name}: --shard {shard}");
            assert!(shards.iter().any(|s| s == i), "{name}");
            assert!(args.junit.is_some() && args.report.is_some(), "{name}");
            assert!(args.summary.is_some(), "{name}");
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "no job of ci/github-actions.yml uses the action"
    );
}

/// `ARG NAME=VALUE` of a Dockerfile.
fn docker_arg<'a>(dockerfile: &'a str, name: &str) -> Option<&'a str> {
    dockerfile.lines().find_map(|line| {
        line.trim()
            .strip_prefix("ARG ")?
            .strip_prefix(name)?
            .strip_prefix('=')
            .map(str::trim)
    })
}

fn minor(version: &str) -> u64 {
    version
        .trim_start_matches('v')
        .split('.')
        .nth(1)
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("not vX.Y.Z: {version}"))
}

#[test]
fn the_runner_image_installs_kepspec_kubectl_and_kind() {
    let dockerfile = read("clusters/runner.Dockerfile");
    for needed in [
        "FROM rust:1.89-bookworm AS build",
        "cargo build --release --locked --bin kepspec",
        "FROM debian:bookworm-slim",
        "ca-certificates",
        "COPY --from=build /src/target/release/kepspec /usr/local/bin/kepspec",
        "https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/",
        "kubectl.sha256",
        "https://kind.sigs.k8s.io/dl/${KIND_VERSION}/kind-linux-",
        ".sha256sum",
        "/usr/local/bin/",
        "WORKDIR /work",
        "ENTRYPOINT [\"kepspec\"]",
    ] {
        assert!(
            dockerfile.contains(needed),
            "clusters/runner.Dockerfile: no `{needed}`"
        );
    }
    // Built with the toolchain the controller image uses.
    let controller = read("clusters/Dockerfile");
    assert!(controller.contains("FROM rust:1.89-bookworm AS build"));

    // One kind release: the image's, the action's default, the workflow's.
    let workflow = yaml("ci/github-actions.yml");
    let action = yaml("action.yml");
    let kind = workflow["env"]["KIND_VERSION"]
        .as_str()
        .expect("KIND_VERSION");
    assert_eq!(docker_arg(&dockerfile, "KIND_VERSION"), Some(kind));
    assert_eq!(
        action["inputs"]["kind-version"]["default"].as_str(),
        Some(kind)
    );

    // kubectl within one minor release of every Kubernetes the workflow runs.
    let kubectl = docker_arg(&dockerfile, "KUBECTL_VERSION").expect("ARG KUBECTL_VERSION=");
    for job in workflow["jobs"].as_object().expect("jobs").values() {
        for version in job["strategy"]["matrix"]["kubernetes"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let version = version.as_str().expect("a version");
            assert!(
                minor(kubectl).abs_diff(minor(version)) <= 1,
                "kubectl {kubectl} against Kubernetes {version}"
            );
        }
    }
}

#[test]
fn unquote_reads_what_printf_q_writes() {
    assert_eq!(
        unquote(r"kepspec run --tags @kep-3541\ and\ not\ @validation --x 'a b' %s\\n"),
        [
            "kepspec",
            "run",
            "--tags",
            "@kep-3541 and not @validation",
            "--x",
            "a b",
            "%s\\n"
        ]
    );
}
