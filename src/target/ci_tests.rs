//! Tests of the CI recipe: every `kepspec run` in ci/github-actions.yml
//! uses options the command line accepts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::gating::Version;
use super::tests::{root, tags};
use super::*;

// ---- the CI recipe ---------------------------------------------------------

/// Splits a command line as a POSIX shell would for plain words, quotes and
/// backslash-newline continuations (no expansion).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(n) => {
                    cur.push(n);
                    in_word = true;
                }
            },
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    cur.push(n);
                }
            }
            '"' => {
                in_word = true;
                while let Some(n) = chars.next() {
                    match n {
                        '"' => break,
                        '\\' => {
                            if let Some(m) = chars.next() {
                                cur.push(m);
                            }
                        }
                        _ => cur.push(n),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Sample values for `${{ matrix.KEY }}`: the first of each list, then the
/// keys `include` adds.
fn matrix_samples(matrix: &Value) -> BTreeMap<String, String> {
    let scalar = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = BTreeMap::new();
    for (key, value) in matrix.as_object().into_iter().flatten() {
        if let Some(first) = value.as_array().and_then(|a| a.first()) {
            if key != "include" && key != "exclude" {
                out.insert(key.clone(), scalar(first));
            }
        }
    }
    for entry in matrix["include"].as_array().into_iter().flatten() {
        for (key, value) in entry.as_object().into_iter().flatten() {
            out.entry(key.clone()).or_insert_with(|| scalar(value));
        }
    }
    out
}

fn substitute(text: &str, samples: &BTreeMap<String, String>) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}").unwrap();
    re.replace_all(text, |c: &regex::Captures| {
        samples
            .get(&c[1])
            .cloned()
            .unwrap_or_else(|| panic!("the matrix has no `{}`", &c[1]))
    })
    .into_owned()
}

/// The arguments after `kepspec` in a step's script, or None.
fn kepspec_invocation(script: &str) -> Option<Vec<String>> {
    let words = shell_words(script);
    let at = words
        .iter()
        .position(|w| w == "kepspec" || w.ends_with("/kepspec"))?;
    let rest = &words[at + 1..];
    (rest.first().map(String::as_str) == Some("run")).then(|| rest.to_vec())
}

/// `--shard` is validated here; until `kepspec run` accepts it, it is the
/// one option taken out before clap parses the rest.
fn without_unsupported_shard(args: Vec<String>) -> Vec<String> {
    use clap::CommandFactory;
    let cli = crate::cli::Cli::command();
    let run_has_shard = cli
        .find_subcommand("run")
        .is_some_and(|run| run.get_arguments().any(|a| a.get_long() == Some("shard")));
    let mut out = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let value = if a == "--shard" {
            Some(it.next().expect("--shard has a value"))
        } else {
            a.strip_prefix("--shard=").map(str::to_string)
        };
        match value {
            Some(v) => {
                v.parse::<Shard>().unwrap_or_else(|e| panic!("{e}"));
                if run_has_shard {
                    out.extend(["--shard".to_string(), v]);
                }
            }
            None => out.push(a),
        }
    }
    out
}

#[test]
fn the_github_workflow_runs_kepspec_with_options_it_accepts() {
    let text = std::fs::read_to_string(root().join("ci/github-actions.yml")).unwrap();
    let wf: Value = crate::yaml::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(wf["on"].get("push").is_some() && wf["on"].get("pull_request").is_some());
    let mut invocations = 0;
    for (job_name, job) in wf["jobs"].as_object().unwrap() {
        let matrix = &job["strategy"]["matrix"];
        let samples = matrix_samples(matrix);
        let steps = job["steps"].as_array().unwrap();
        for step in steps {
            let Some(script) = step["run"].as_str() else {
                continue;
            };
            let Some(args) = kepspec_invocation(&substitute(script, &samples)) else {
                continue;
            };
            invocations += 1;
            assert!(
                !args.iter().any(|a| a.contains("${{")),
                "{job_name}: unsubstituted expression in {args:?}"
            );
            let shard_arg = args
                .iter()
                .position(|a| a == "--shard")
                .map(|i| args[i + 1].parse::<Shard>().unwrap());
            let argv: Vec<String> = std::iter::once("kepspec".to_string())
                .chain(without_unsupported_shard(args.clone()))
                .collect();
            let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(&argv)
                .unwrap_or_else(|e| panic!("{job_name}: kepspec rejects {argv:?}: {e}"));
            let crate::cli::Command::Run(run) = cli.command else {
                panic!("{job_name}: not `kepspec run`")
            };
            assert_eq!(run.cluster, crate::cli::ClusterChoice::Kind);
            assert!(run.junit.is_some() && run.report.is_some());
            // Every shard of the row is in the matrix.
            if let Some(s) = shard_arg {
                let listed: Vec<u64> = matrix["shard"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_u64)
                    .collect();
                let expected: Vec<u64> = (1..=s.total as u64).collect();
                assert_eq!(
                    listed, expected,
                    "{job_name}: shards of --shard I/{}",
                    s.total
                );
            }
        }
        // Targets and node images agree with what kepspec accepts.
        for t in matrix["target"].as_array().into_iter().flatten() {
            let t = t.as_str().unwrap();
            Profile::resolve(&t.parse().unwrap()).unwrap();
        }
        for inc in matrix["include"].as_array().into_iter().flatten() {
            if let (Some(k), Some(img)) = (inc["kubernetes"].as_str(), inc["node-image"].as_str()) {
                assert_eq!(Version::of_node_image(img), Version::parse(k).ok(), "{img}");
            }
        }
        let upload = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
            })
            .expect("the report is uploaded");
        assert_eq!(upload["with"]["path"], "out/");
        assert!(upload["if"]
            .as_str()
            .is_some_and(|c| c.contains("always()")));
    }
    assert_eq!(invocations, 1);
}

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(
        shell_words("a 'b c' \"d \\\" e\" f\\\n  g"),
        vec!["a", "b c", "d \" e", "f", "g"]
    );
    let args = without_unsupported_shard(tags(&["run", "--shard", "1/2", "--tags", "@x"]));
    assert!(args.ends_with(&["--tags".to_string(), "@x".to_string()]));
}
