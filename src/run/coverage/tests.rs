use super::*;

fn entry(id: &str) -> Entry {
    Entry {
        id: id.into(),
        source: "KEP-3541 final".into(),
        text: format!("promise {id}"),
    }
}

const FEATURE: &str = "@recreate
Feature: f
  narrative

  # covers: R1 R2
  @slow
  Scenario: first
    Given a step

  # covers: E1
  Scenario Outline: second <n>
    Given a step
";

#[test]
fn a_covers_comment_belongs_to_the_scenario_below_it() {
    let claims = claims_in(FEATURE, "features/x.feature", "x.feature").unwrap();
    let seen: Vec<(&str, &str, &str)> = claims
        .iter()
        .map(|c| (c.id.as_str(), c.at.as_str(), c.scenario.as_str()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("R1", "features/x.feature:5", "x.feature \u{2014} first"),
            ("R2", "features/x.feature:5", "x.feature \u{2014} first"),
            (
                "E1",
                "features/x.feature:10",
                "x.feature \u{2014} second <n>"
            ),
        ]
    );
}

#[test]
fn a_scenario_that_some_claiming_targets_do_not_run_covers_only_partly() {
    let text = "@recreate
Feature: f
  # covers: R1
  @deviates-x
  Scenario: kep reading
    Given a step

  # covers: R2
  Scenario: everywhere
    Given a step

  @deviation-x
  Scenario: other reading
    Given a step
";
    let claims = claims_in(text, "features/x.feature", "x.feature").unwrap();
    let limits: Vec<Option<&str>> = claims.iter().map(|c| c.limit.as_deref()).collect();
    assert_eq!(limits, vec![Some("not on a target declaring x"), None]);
    let map = build(
        vec![entry("R1"), entry("R2")],
        vec![],
        &BTreeMap::new(),
        &claims,
    )
    .unwrap();
    let counts = Counts::of(&map.promises);
    assert_eq!((counts.covered, counts.partly), (1, 1));
    let md = markdown(&map);
    assert!(
        md.contains("**on some targets only**: x.feature \u{2014} kep reading *(not on a target declaring x)*"),
        "{md}"
    );
    let embedded = "@embedded-only\nFeature: f\n  # covers: R1\n  Scenario: s\n    Given a step\n";
    let claims = claims_in(embedded, "features/x.feature", "x.feature").unwrap();
    assert_eq!(claims[0].limit.as_deref(), Some("embedded cluster only"));
}

#[test]
fn a_covers_comment_away_from_a_scenario_is_an_input_problem() {
    let stray = "Feature: f\n  # covers: R1\n  Background:\n    Given a step\n  Scenario: s\n";
    let p = claims_in(stray, "features/x.feature", "x.feature").unwrap_err();
    assert_eq!(p.place, "features/x.feature:2");
    assert!(p.message.contains("right above a Scenario"), "{p}");
    let trailing = "Feature: f\n  Scenario: s\n    Given a step\n  # covers: R1\n";
    let p = claims_in(trailing, "features/x.feature", "x.feature").unwrap_err();
    assert!(p.message.contains("none follows"), "{p}");
    let empty = "Feature: f\n  # covers:\n  Scenario: s\n";
    let p = claims_in(empty, "features/x.feature", "x.feature").unwrap_err();
    assert!(p.message.contains("names no id"), "{p}");
}

#[test]
fn every_entry_is_covered_or_explained_never_both_and_ids_are_known() {
    let claims = claims_in(FEATURE, "features/x.feature", "x.feature").unwrap();
    let mut explained = BTreeMap::new();
    explained.insert("R3".to_string(), Why::Gap("needs a step".into()));
    let ok = build(
        vec![entry("R1"), entry("R2"), entry("R3")],
        vec![entry("E1")],
        &explained,
        &claims,
    )
    .unwrap();
    assert_eq!(
        Counts::of(&ok.promises),
        Counts {
            total: 3,
            covered: 2,
            partly: 0,
            gaps: 1,
            not_testable: 0
        }
    );
    // R4 is neither covered nor explained; R1 is both; X9 is unknown.
    explained.insert("R1".to_string(), Why::NotTestable("no".into()));
    explained.insert("X9".to_string(), Why::Gap("?".into()));
    let problems = build(
        vec![entry("R1"), entry("R2"), entry("R3"), entry("R4")],
        vec![],
        &explained,
        &claims,
    )
    .unwrap_err()
    .join("\n");
    assert!(problems.contains("R4 is neither covered"), "{problems}");
    assert!(
        problems.contains("R1 is covered by x.feature \u{2014} first and still explained"),
        "{problems}"
    );
    assert!(
        problems.contains("features/x.feature:10: `# covers:` names E1"),
        "{problems}"
    );
    assert!(
        problems.contains("X9 is in neither catalogue"),
        "{problems}"
    );
}

#[test]
fn explanations_need_exactly_one_reason() {
    assert!(parse_explained("R1: {gap: a, not_testable: b}\n").is_err());
    assert!(parse_explained("R1: {}\n").is_err());
    let ok = parse_explained("R1: {gap: a}\nE2: {not_testable: b}\n").unwrap();
    assert_eq!(ok.get("E2"), Some(&Why::NotTestable("b".into())));
    let p = parse_promises("promises:\n  R1: {source: s}\n").unwrap_err();
    assert_eq!(p.place, "coverage/promises.yaml: promises.R1");
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn repo_map() -> Map {
    let features = super::super::features::discover(&[repo().join("features")])
        .unwrap_or_else(|e| panic!("{e}"));
    match load(repo(), &features) {
        Err(p) => panic!("{p}"),
        Ok(Err(problems)) => panic!(
            "{} coverage problem(s):\n{}",
            problems.len(),
            problems.join("\n")
        ),
        Ok(Ok(map)) => map,
    }
}

#[test]
fn the_coverage_map_is_complete_and_in_step() {
    let map = repo_map();
    let generated = markdown(&map);
    let path = repo().join("coverage").join("COVERAGE.md");
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "coverage/COVERAGE.md is not what `kepspec list --coverage` prints: regenerate it with \
         `cargo run --quiet -- list --coverage > coverage/COVERAGE.md`"
    );
    let page = std::fs::read_to_string(repo().join("docs/src/coverage.md")).unwrap_or_default();
    for (what, rows) in [
        ("Seed promises", &map.promises),
        ("Upstream's StatefulSet tests", &map.upstream),
    ] {
        let line = format!("{what}: {}.", Counts::of(rows).sentence());
        assert!(
            page.contains(&line),
            "docs/src/coverage.md does not say \"{line}\""
        );
    }
}

#[test]
fn the_promise_catalogue_holds_every_seed_id_in_order() {
    // The seed list is kept with the source texts (KEPSPEC_SOURCES).
    let Some(dir) = crate::run::citations::sources_dir() else {
        eprintln!(
            "the_promise_catalogue_holds_every_seed_id_in_order: skipped, KEPSPEC_SOURCES names no folder of source texts"
        );
        return;
    };
    let seed = std::fs::read_to_string(dir.join("seed-promises.md"))
        .unwrap_or_else(|e| panic!("seed-promises.md: {e}"));
    let ids: Vec<String> = seed
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .map(str::trim)
        .filter(|id| {
            let mut c = id.chars();
            c.next().is_some_and(|f| "RDMCK".contains(f))
                && id.len() > 1
                && c.all(|d| d.is_ascii_digit())
        })
        .map(String::from)
        .collect();
    let text = std::fs::read_to_string(repo().join(PROMISES)).unwrap_or_default();
    let catalogue: Vec<String> = parse_promises(&text)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(catalogue, ids);
}
