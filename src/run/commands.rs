//! The smaller subcommands: `list`, `lint`, `cluster up`, `controller`.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::runner::{self, ScenarioWorld};
use crate::cli::{ClusterUpArgs, ControllerArgs, ListArgs, EXIT_ERROR, EXIT_FAILED, EXIT_PASSED};
use crate::controller::{self, ControllerGates, ControllerOptions};
use crate::sim::ApiGates;
use crate::sim::{ClusterConfig, EmbeddedCluster};

/// `kepspec list`: features, scenarios and their tags.
pub fn list<W: ScenarioWorld>(args: &ListArgs) -> u8 {
    let features = match super::features::discover(&super::features::or_default(&args.features)) {
        Ok(files) => files,
        Err(p) => {
            eprintln!("error: {p}");
            return EXIT_ERROR;
        }
    };
    if args.coverage {
        return coverage(&features);
    }
    if args.markdown {
        return match markdown_table(&features) {
            Ok(table) => match &args.into {
                None => {
                    super::out::text_raw(&table);
                    EXIT_PASSED
                }
                Some(page) => write_generated(page, CATALOGUE_MARKER, &table),
            },
            Err(p) => {
                eprintln!("error: {p}");
                EXIT_ERROR
            }
        };
    }
    let mut code = EXIT_PASSED;
    for file in features {
        match super::features::parse(&file) {
            Ok(f) => {
                super::out::line(format_args!(
                    "{}  {}  {}",
                    file.display(),
                    f.name,
                    f.tags
                        .iter()
                        .map(|t| format!("@{t}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
                for sc in f
                    .scenarios
                    .iter()
                    .chain(f.rules.iter().flat_map(|r| r.scenarios.iter()))
                {
                    let tags: Vec<String> = sc.tags.iter().map(|t| format!("@{t}")).collect();
                    super::out::line(format_args!(
                        "  {}:{}  {}  {}",
                        file.display(),
                        sc.position.line,
                        sc.name,
                        tags.join(" ")
                    ));
                }
            }
            Err(p) => {
                eprintln!("error: {p}");
                code = EXIT_ERROR;
            }
        }
    }
    code
}

/// `kepspec list --coverage`: the catalogues are read from the working
/// directory (the repository root).
fn coverage(features: &[PathBuf]) -> u8 {
    match super::coverage::load(Path::new("."), features) {
        Err(p) => {
            eprintln!("error: {p}");
            EXIT_ERROR
        }
        Ok(Err(problems)) => {
            for p in &problems {
                eprintln!("error: {p}");
            }
            eprintln!("{} coverage problem(s)", problems.len());
            EXIT_FAILED
        }
        Ok(Ok(map)) => {
            super::out::text_raw(&super::coverage::markdown(&map));
            EXIT_PASSED
        }
    }
}

/// The clause a feature cites: its narrative up to the first quoted section
/// name (`KEP-3541, "Proposed Recreate Strategy Algorithm"`).
pub fn citation(description: &str) -> String {
    let text = description.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.find("\":") {
        Some(end) => text[..=end].to_string(),
        None => text.split(": ").next().unwrap_or_default().to_string(),
    }
}

/// Every scenario as a row of a Markdown table.
/// The line of `docs/src/catalogue.md` after which the generated table
/// stands.
pub const CATALOGUE_MARKER: &str = "<!-- generated: catalogue -->";

/// Replaces what follows `marker` in `page` with `generated`; an error when
/// the page has no marker line.
pub fn regenerate(page: &str, marker: &str, generated: &str) -> Result<String, String> {
    let (head, _) = page
        .split_once(marker)
        .ok_or_else(|| format!("no `{marker}` line to write after"))?;
    Ok(format!("{head}{marker}\n{generated}"))
}

/// Writes `generated` into the page file after its `marker` line (`--into`).
fn write_generated(page: &std::path::Path, marker: &str, generated: &str) -> u8 {
    let written = std::fs::read_to_string(page)
        .map_err(|e| e.to_string())
        .and_then(|text| regenerate(&text, marker, generated))
        .and_then(|text| std::fs::write(page, text).map_err(|e| e.to_string()));
    match written {
        Ok(()) => EXIT_PASSED,
        Err(e) => {
            eprintln!("error: {}: {e}", page.display());
            EXIT_ERROR
        }
    }
}

pub fn markdown_table(files: &[PathBuf]) -> Result<String, super::features::InputProblem> {
    let mut out = String::from("| feature | scenario | encodes | tags |\n|---|---|---|---|\n");
    for file in files {
        let f = super::features::parse(file)?;
        let cite = citation(f.description.as_deref().unwrap_or_default());
        for sc in f
            .scenarios
            .iter()
            .chain(f.rules.iter().flat_map(|r| r.scenarios.iter()))
        {
            let tags: Vec<String> = f
                .tags
                .iter()
                .chain(sc.tags.iter())
                .map(|t| format!("`@{t}`"))
                .collect();
            let text = file.display().to_string();
            let name = text
                .split_once("features/")
                .map(|(_, rest)| rest.to_string())
                .unwrap_or(text.clone());
            out.push_str(&format!(
                "| {}:{} | {} | {} | {} |\n",
                name,
                sc.position.line,
                // An outline's name holds `<placeholders>`, which Markdown
                // renderers would take for HTML tags.
                sc.name
                    .replace('|', "\\|")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;"),
                cite.replace('|', "\\|"),
                tags.join(" ")
            ));
        }
    }
    Ok(out)
}

/// `kepspec lint`: syntax, undefined and ambiguous steps.
pub fn lint<W: ScenarioWorld>(args: &crate::cli::LintArgs, verbose: bool) -> u8 {
    match runner::load::<W>(&super::features::or_default(&args.features)) {
        Ok(features) => {
            if verbose {
                for unused in super::features::unused_steps::<W>(&features) {
                    super::out::line(format_args!("note: {unused}"));
                }
            }
            let steps: usize = features
                .iter()
                .map(|f| super::features::steps_of(f).len())
                .sum();
            super::out::line(format_args!(
                "{} features, {steps} steps: every step is defined exactly once",
                features.len()
            ));
            EXIT_PASSED
        }
        Err(problems) => {
            for p in &problems {
                eprintln!("error: {p}");
            }
            // Mistakes in the spec's text are input errors, as in `run`.
            EXIT_ERROR
        }
    }
}

/// `kepspec cluster up`: the embedded cluster until Ctrl-C.
pub async fn cluster_up(args: &ClusterUpArgs) -> u8 {
    let mut config = ClusterConfig::default();
    if let Some(v) = args.kube_version {
        config.version = v;
    }
    config.gates = ApiGates::for_version(config.version);
    let controller_gates = match args
        .feature_gates
        .as_deref()
        .map(|spec| ControllerGates::parse_for(spec, config.version))
        .transpose()
    {
        Ok(g) => g.unwrap_or_else(|| ControllerGates::for_version(config.version)),
        Err(e) => {
            eprintln!("error: --feature-gates: {e}");
            return EXIT_ERROR;
        }
    };
    if let Some(spec) = &args.feature_gates {
        match ApiGates::parse_for(spec, config.version) {
            Ok(g) => config.gates = g,
            Err(e) => {
                eprintln!("error: --feature-gates: {e}");
                return EXIT_ERROR;
            }
        }
    }
    let config_version = config.version;
    let cluster = match EmbeddedCluster::start(config).await {
        Ok(c) => c,
        Err(err) => {
            eprintln!("error: cannot start the embedded cluster: {err:#}");
            return EXIT_ERROR;
        }
    };
    if let Err(err) = cluster.write_kubeconfig(&args.kubeconfig) {
        eprintln!("error: cannot write {}: {err:#}", args.kubeconfig.display());
        return EXIT_ERROR;
    }
    let stop = CancellationToken::new();
    let controller_task = if args.with_controller {
        match cluster.client().await {
            Ok(client) => {
                let token = stop.clone();
                let opts = ControllerOptions {
                    gates: controller_gates,
                    ..ControllerOptions::default()
                };
                Some(tokio::spawn(async move {
                    controller::run(client, opts, token).await
                }))
            }
            Err(err) => {
                eprintln!("error: {err:#}");
                return EXIT_ERROR;
            }
        }
    } else {
        None
    };
    println!(
        "embedded cluster (Kubernetes {}) listening on {}",
        config_version,
        cluster.url()
    );
    println!("kubeconfig written to {}", args.kubeconfig.display());
    println!(
        "  kubectl --kubeconfig {} get pods -A -w",
        args.kubeconfig.display()
    );
    if controller_task.is_none() {
        println!(
            "no StatefulSet controller runs: start one against this kubeconfig (`kepspec controller --kubeconfig {}`, or the controller you test), or use --with-controller",
            args.kubeconfig.display()
        );
    }
    println!("Ctrl-C stops it.");
    let _ = tokio::signal::ctrl_c().await;
    stop.cancel();
    if let Some(task) = controller_task {
        let _ = task.await;
    }
    cluster.shutdown().await;
    EXIT_PASSED
}

/// `kepspec controller`: the bundled controller against a cluster.
pub async fn controller(args: &ControllerArgs) -> u8 {
    kepspec_controller::command::serve(args).await
}

/// `kepspec cite`: the features' quotations checked against the source
/// texts; exit 2 when one is not found (or the texts cannot be read).
pub fn cite(args: &crate::cli::CiteArgs) -> u8 {
    let Some(dir) = args.sources.clone().or_else(super::citations::sources_dir) else {
        eprintln!(
            "error: no source texts: pass --sources DIR or set {} (the folder holding the text \
             of each source of {} under its `file` name)",
            super::citations::SOURCES_ENV,
            super::citations::REGISTRY
        );
        return EXIT_ERROR;
    };
    let files = match super::features::discover(&super::features::or_default(&args.features)) {
        Ok(files) => files,
        Err(p) => {
            eprintln!("error: {p}");
            return EXIT_ERROR;
        }
    };
    match super::citations::check_features(&dir, &files) {
        Ok(report) if report.problems.is_empty() => {
            eprintln!(
                "{} quotations in {} feature files occur in their sources ({})",
                report.cites,
                files.len(),
                dir.display()
            );
            EXIT_PASSED
        }
        Ok(report) => {
            for p in &report.problems {
                eprintln!("error: {p}");
            }
            eprintln!(
                "{} problem(s) in {} quotations",
                report.problems.len(),
                report.cites
            );
            EXIT_ERROR
        }
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_ERROR
        }
    }
}

/// `kepspec steps`: the step catalogue.
pub fn steps(args: &crate::cli::StepsArgs) -> u8 {
    let steps = super::step_catalogue::catalogue();
    if !args.markdown {
        super::out::text_raw(&super::step_catalogue::text(&steps));
        return EXIT_PASSED;
    }
    let table = super::step_catalogue::markdown(&steps);
    match &args.into {
        Some(page) => write_generated(page, super::step_catalogue::MARKER, &table),
        None => {
            super::out::text_raw(&table);
            EXIT_PASSED
        }
    }
}

/// `kepspec spec export DIR`: the bundled spec written out.
pub fn spec_export(args: &crate::cli::SpecExportArgs) -> u8 {
    match crate::bundle::export(&args.dir, args.force) {
        Ok(files) => {
            eprintln!(
                "wrote {} files of the bundled spec under {}",
                files.len(),
                args.dir.display()
            );
            EXIT_PASSED
        }
        Err(err) => {
            eprintln!("error: {err}");
            EXIT_ERROR
        }
    }
}

/// `kepspec bench`: the benchmarks, as a Markdown report; exit 1 when a goal
/// is missed, 2 when a benchmark name is unknown.
pub async fn bench(args: &crate::cli::BenchArgs) -> u8 {
    let opts = crate::bench::BenchOptions {
        quick: args.quick,
        only: args.only.clone(),
        baseline: args.baseline.clone(),
        baseline_dir: args.baseline_dir.clone(),
        rounds: args.rounds,
    };
    match crate::bench::run(opts).await {
        Ok(report) => {
            let text = report.to_markdown();
            print!("{text}");
            if let Some(path) = &args.out {
                if let Err(err) = std::fs::write(path, &text) {
                    eprintln!("error: cannot write {}: {err}", path.display());
                    return EXIT_ERROR;
                }
            }
            if report.problems().is_empty() {
                EXIT_PASSED
            } else {
                EXIT_FAILED
            }
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            EXIT_ERROR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_the_cited_sections() {
        assert_eq!(
            citation(
                "KEP-3541, \"Proposed Recreate Strategy Algorithm\": when the\n  template changes"
            ),
            "KEP-3541, \"Proposed Recreate Strategy Algorithm\""
        );
        assert_eq!(
            citation("Kubernetes issue #137409 (v1.35): pods"),
            "Kubernetes issue #137409 (v1.35)"
        );
    }

    #[test]
    fn the_spec_catalogue_is_what_list_markdown_prints() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let files = super::super::features::discover(&[root.join("features")]).unwrap();
        let page = std::fs::read_to_string(root.join("docs/src/catalogue.md")).unwrap_or_default();
        let generated = page
            .split_once(CATALOGUE_MARKER)
            .map(|(_, table)| table.trim_start_matches('\n'))
            .unwrap_or_default();
        assert!(
            generated == markdown_table(&files).unwrap(),
            "docs/src/catalogue.md is not what `kepspec list --markdown` prints after its \
             `{CATALOGUE_MARKER}` line: regenerate it with \
             `cargo run --quiet -- list --markdown --into docs/src/catalogue.md`"
        );
    }
}
