//! The roster of a run, decided before any cluster is touched: every scenario
//! the features hold, whether the selection takes it, and whether it runs or
//! is skipped (with the reason). Everything a user reads about "what was
//! claimed, what ran, what was skipped and why" comes from here, so a run
//! that selected nothing, or skipped everything, can say so by name.

use cucumber::gherkin;

use super::features::Selection;

/// One scenario of the features (an example of an outline counts as one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RosterEntry {
    /// `features/x.feature:12`.
    pub key: String,
    /// The feature file.
    pub path: String,
    /// The feature's name.
    pub feature: String,
    /// The scenario's line.
    pub line: u32,
    /// The scenario's name.
    pub name: String,
    /// Every tag, inherited ones included, with `@`.
    pub tags: Vec<String>,
    /// Why it is reported as skipped instead of run (None: it runs).
    pub skip: Option<String>,
}

/// The scenarios a run selected, in file order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Roster {
    /// Every selected scenario.
    pub scenarios: Vec<RosterEntry>,
    /// How many scenarios the features hold in all (selected or not).
    pub available: usize,
}

/// Every scenario of a feature with its rule.
pub(crate) fn scenarios_of(
    f: &gherkin::Feature,
) -> impl Iterator<Item = (Option<&gherkin::Rule>, &gherkin::Scenario)> {
    let rules = f
        .rules
        .iter()
        .flat_map(|r| r.scenarios.iter().map(move |s| (Some(r), s)));
    f.scenarios.iter().map(|s| (None, s)).chain(rules)
}

/// Every tag of a scenario, inherited ones included, with `@`.
pub(crate) fn tags_with_at(
    f: &gherkin::Feature,
    rule: Option<&gherkin::Rule>,
    sc: &gherkin::Scenario,
) -> Vec<String> {
    f.tags
        .iter()
        .chain(rule.iter().flat_map(|r| r.tags.iter()))
        .chain(sc.tags.iter())
        .map(|t| format!("@{t}"))
        .collect()
}

impl Roster {
    /// The roster of these features: the scenarios `selection` selects, each
    /// with the skip reason `skip` gives it (None: it runs).
    pub(crate) fn new(
        features: &[gherkin::Feature],
        selection: &Selection,
        mut skip: impl FnMut(&RosterEntry) -> Option<String>,
    ) -> Roster {
        let mut roster = Roster::default();
        for f in features {
            let path = f
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            for (rule, sc) in scenarios_of(f) {
                roster.available += 1;
                if !selection.selects(f, rule, sc) {
                    continue;
                }
                let mut p = RosterEntry {
                    key: Selection::key(f, sc),
                    path: path.clone(),
                    feature: f.name.clone(),
                    line: sc.position.line as u32,
                    name: sc.name.clone(),
                    tags: tags_with_at(f, rule, sc),
                    skip: None,
                };
                p.skip = skip(&p);
                roster.scenarios.push(p);
            }
        }
        roster
    }

    /// The scenarios that run.
    pub(crate) fn runs(&self) -> impl Iterator<Item = &RosterEntry> {
        self.scenarios.iter().filter(|p| p.skip.is_none())
    }

    /// The features cut down to the scenarios that run (features left with
    /// none are dropped), for cucumber.
    pub(crate) fn prune(&self, features: &[gherkin::Feature]) -> Vec<gherkin::Feature> {
        let runs: std::collections::BTreeSet<&str> = self.runs().map(|p| p.key.as_str()).collect();
        let keep = |f: &gherkin::Feature, s: &gherkin::Scenario| {
            runs.contains(Selection::key(f, s).as_str())
        };
        features
            .iter()
            .filter_map(|f| {
                let mut out = f.clone();
                out.scenarios.retain(|s| keep(f, s));
                for r in &mut out.rules {
                    r.scenarios.retain(|s| keep(f, s));
                }
                out.rules.retain(|r| !r.scenarios.is_empty());
                (!out.scenarios.is_empty() || !out.rules.is_empty()).then_some(out)
            })
            .collect()
    }

    #[cfg(test)]
    /// How many scenarios are skipped, by reason (most frequent first).
    pub(crate) fn skip_reasons(&self) -> Vec<(String, usize)> {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for p in &self.scenarios {
            if let Some(r) = &p.skip {
                *counts.entry(r.clone()).or_default() += 1;
            }
        }
        let mut out: Vec<(String, usize)> = counts.into_iter().collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cucumber::gherkin::GherkinEnv;

    fn feature(text: &str, path: &str) -> gherkin::Feature {
        let mut f = gherkin::Feature::parse(text, GherkinEnv::default()).unwrap();
        f.path = Some(path.into());
        f
    }

    #[test]
    fn a_plan_lists_selected_scenarios_with_their_skips_and_prunes_the_rest() {
        let f = feature(
            "@a\nFeature: x\n  Scenario: one\n    Given s\n  @b\n  Scenario: two\n    Given s\n  Scenario: three\n    Given s\n",
            "features/x.feature",
        );
        let sel = Selection::new(Some("@a"), None).unwrap();
        let plan = Roster::new(std::slice::from_ref(&f), &sel, |p| {
            p.tags
                .contains(&"@b".to_string())
                .then(|| "no b here".to_string())
        });
        assert_eq!(plan.available, 3);
        assert_eq!(plan.scenarios.len(), 3);
        assert_eq!(plan.runs().count(), 2);
        assert_eq!(plan.skip_reasons(), vec![("no b here".to_string(), 1)]);
        let pruned = plan.prune(std::slice::from_ref(&f));
        let names: Vec<&str> = pruned[0]
            .scenarios
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, vec!["one", "three"]);
        let none = Roster::new(
            std::slice::from_ref(&f),
            &Selection::new(Some("@c"), None).unwrap(),
            |_| None,
        );
        assert!(none.scenarios.is_empty());
        assert!(none.prune(std::slice::from_ref(&f)).is_empty());
    }
}
