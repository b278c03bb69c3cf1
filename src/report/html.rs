//! A self-contained HTML report: inline CSS, inline SVG pictures, no
//! scripts, no external resources. All user text is escaped.
//!
//! Failed scenarios come first; filters by outcome and by tag are radio
//! buttons read by CSS (`:has`), so they work where a CI viewer's content
//! policy forbids scripts; a table tallies outcomes per KEP and tag.

use super::model::{Feature, Run, ScenarioResult, Status, Totals, NOT_RUN_AFTER_FAILURE};
use super::swimlane::StepMark;
use super::{escape, swimlane};
use crate::history::Timeline;
use std::collections::BTreeMap;
use std::fmt::Write;

const STYLE: &str = "
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{margin:0 0 4px}h2{margin:28px 0 4px;border-bottom:1px solid #ccc}h3{margin:0 0 6px;font-size:1.05em}
.path,.meta{color:#666;font-size:.9em;margin:0 0 8px}
.summary span{margin-right:14px}
article{background:#fff;border:1px solid #ddd;border-left:6px solid #bbb;border-radius:4px;padding:10px 14px;margin:12px 0}
article.passed{border-left-color:#2e8b57}article.failed{border-left-color:#d00}
article.skipped{border-left-color:#c9a400}article.not-implemented{border-left-color:#7a4fc9}
.badge{display:inline-block;min-width:92px;text-align:center;font-size:.8em;padding:1px 6px;border-radius:3px;color:#fff;margin-right:8px}
.badge.passed{background:#2e8b57}.badge.deviation{background:#1f7a99}article.deviation{border-left-color:#1f7a99}
ul.deviations{margin:4px 0;padding-left:22px;color:#1f5f7a}table.props td{padding:1px 10px 1px 0;font-size:.9em}.problems{color:#b00}.badge.failed{background:#d00}.badge.skipped{background:#c9a400}.badge.not-implemented{background:#7a4fc9}
ol.steps{margin:6px 0;padding-left:22px}ol.steps li{margin:2px 0}
ol.steps li.failed{color:#b00}ol.steps li.skipped{color:#888}ol.steps li.not-implemented{color:#7a4fc9}
.kw{font-weight:600}.line{color:#999;font-size:.85em}
pre{background:#f3f3f3;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;font-size:.85em;margin:4px 0}
.violation pre{background:#fff0f0;border:1px solid #f3b0b0}
.picture{overflow-x:auto}\ndetails.listing summary{cursor:pointer;color:#555;font-size:.9em}
svg.swimlanes{font-size:11px;font-family:inherit;background:#fff}
svg .grid{stroke:#eee}svg .tick,svg .axis-label{fill:#555}svg .lane{fill:#222}
table.index{border-collapse:collapse;margin:8px 0}table.index td{padding:2px 10px 2px 0}
table.comparison{border-collapse:collapse;margin:8px 0;background:#fff}table.comparison th,table.comparison td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;font-size:.9em}
.refs{font-size:.8em;margin-left:4px}.refs a{color:#1f5f7a}
form.filters{background:#fff;border:1px solid #ddd;border-radius:4px;padding:6px 10px;margin:10px 0}
form.filters fieldset{border:0;margin:0;padding:2px 0}form.filters legend{float:left;width:60px;color:#555;font-size:.9em;padding:0}
form.filters label{font-size:.85em;margin:0 10px 0 2px;cursor:pointer}
table.tally{border-collapse:collapse;margin:8px 0;background:#fff}table.tally th,table.tally td{border:1px solid #ddd;padding:2px 8px;font-size:.85em;text-align:right}
table.tally td:first-child,table.tally th:first-child{text-align:left}table.tally label{cursor:pointer;color:#1f5f7a}
td.reason{color:#666;font-size:.85em}p.moved{margin:6px 0;font-size:.9em}
ol.steps li.not-run{color:#999;font-style:italic}.at{color:#777;font-size:.85em}
a.objects{font-size:.9em}
";

/// The class and word of a scenario's outcome (a pass through a declared
/// deviation has its own).
fn outcome(s: &ScenarioResult) -> (&'static str, &'static str) {
    if s.passed_with_deviation() {
        ("deviation", "passed with deviation")
    } else {
        (class(&s.status), s.status.word())
    }
}

fn class(status: &Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Skipped { .. } => "skipped",
        Status::NotImplemented => "not-implemented",
    }
}

/// Renders the whole run as one HTML document.
pub(crate) fn render(run: &Run) -> String {
    let t = run.totals();
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>kepspec report</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<h1>kepspec report</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"summary\"><span>{} scenarios</span><span>{} passed</span><span>{} passed with deviation</span><span>{} failed</span><span>{} skipped</span><span>{} not implemented</span><span>{:.1}s</span>{}</p>",
        t.scenarios,
        t.passed - t.with_deviation,
        t.with_deviation,
        t.failed,
        t.skipped,
        t.not_implemented,
        run.duration.as_secs_f64(),
        if run.target.is_empty() {
            String::new()
        } else {
            format!("<span>target: {}</span>", escape(&run.target))
        }
    );
    if !run.problems.is_empty() {
        out.push_str("<ul class=\"problems\">\n");
        for p in &run.problems {
            let _ = writeln!(out, "<li>{}</li>", escape(p));
        }
        out.push_str("</ul>\n");
    }
    if !run.properties.is_empty() {
        out.push_str("<table class=\"props\">\n");
        for (k, v) in &run.properties {
            let _ = writeln!(out, "<tr><td>{}</td><td>{}</td></tr>", escape(k), escape(v));
        }
        out.push_str("</table>\n");
    }
    let tags = Tags::of(run);
    filters(&mut out, &t, &tags);
    out.push_str("<style>");
    out.push_str(&filter_rules(&tags));
    out.push_str("</style>\n");
    tally(&mut out, run, &tags);
    index(&mut out, run, &tags);
    out.push_str(&super::comparison::html(&super::comparison::table(
        run, anchor,
    )));
    let failed: Vec<(usize, usize)> = run
        .features
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.scenarios
                .iter()
                .enumerate()
                .filter(|(_, s)| first(s))
                .map(move |(si, _)| (fi, si))
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "<section class=\"feature failures\">\n<h2>Failed ({})</h2>",
            failed.len()
        );
        for &(fi, si) in &failed {
            let f = &run.features[fi];
            let s = &f.scenarios[si];
            let _ = writeln!(out, "<p class=\"path\">{}:{}</p>", escape(&f.path), s.line);
            scenario(&mut out, &anchor(fi, si), s, &tags);
        }
        out.push_str("</section>\n");
    }
    for (fi, f) in run.features.iter().enumerate() {
        feature(&mut out, fi, f, &tags);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn anchor(fi: usize, si: usize) -> String {
    format!("s{fi}-{si}")
}

/// Scenarios shown first, in the "Failed" section (failed or not
/// implemented).
fn first(s: &ScenarioResult) -> bool {
    matches!(s.status, Status::Failed | Status::NotImplemented)
}

/// Every tag of the run, numbered for the filter's element ids; KEP tags
/// (`@kep-…`) first.
struct Tags {
    names: Vec<String>,
}

impl Tags {
    fn of(run: &Run) -> Tags {
        let mut names: Vec<String> = run
            .features
            .iter()
            .flat_map(|f| &f.scenarios)
            .flat_map(|s| s.tags.iter().cloned())
            .collect();
        names.sort_by(|a, b| (!a.starts_with("@kep-"), a).cmp(&(!b.starts_with("@kep-"), b)));
        names.dedup();
        Tags { names }
    }

    fn index(&self, tag: &str) -> Option<usize> {
        self.names.iter().position(|t| t == tag)
    }

    /// The classes of a scenario's row and article: its outcome and tags.
    fn classes(&self, s: &ScenarioResult) -> String {
        let mut out = format!("sc {}", outcome(s).0);
        for t in &s.tags {
            if let Some(i) = self.index(t) {
                let _ = write!(out, " tag-{i}");
            }
        }
        out
    }
}

/// The outcomes a filter can pick: class and label.
const OUTCOMES: [(&str, &str); 5] = [
    ("failed", "failed"),
    ("not-implemented", "not implemented"),
    ("deviation", "passed with deviation"),
    ("passed", "passed"),
    ("skipped", "skipped"),
];

fn filters(out: &mut String, t: &Totals, tags: &Tags) {
    let count = |class: &str| match class {
        "failed" => t.failed,
        "not-implemented" => t.not_implemented,
        "deviation" => t.with_deviation,
        "passed" => t.passed - t.with_deviation,
        _ => t.skipped,
    };
    out.push_str("<form class=\"filters\">\n<fieldset><legend>outcome</legend><input type=\"radio\" name=\"outcome\" id=\"outcome-all\" checked=\"checked\"><label for=\"outcome-all\">all</label>");
    for (class, label) in OUTCOMES {
        let _ = write!(
            out,
            "<input type=\"radio\" name=\"outcome\" id=\"outcome-{class}\"><label for=\"outcome-{class}\">{label} ({})</label>",
            count(class)
        );
    }
    out.push_str("</fieldset>\n<fieldset><legend>tag</legend><input type=\"radio\" name=\"tag\" id=\"tag-all\" checked=\"checked\"><label for=\"tag-all\">all</label>");
    for (i, name) in tags.names.iter().enumerate() {
        let _ = write!(
            out,
            "<input type=\"radio\" name=\"tag\" id=\"tag-{i}\"><label for=\"tag-{i}\">{}</label>",
            escape(name)
        );
    }
    out.push_str("</fieldset>\n</form>\n");
}

/// The CSS that hides what a checked filter leaves out: rows, articles and
/// the feature sections with nothing left to show.
fn filter_rules(tags: &Tags) -> String {
    let mut css = String::new();
    for (class, _) in OUTCOMES {
        let _ = writeln!(
            css,
            "body:has(#outcome-{class}:checked) .sc:not(.{class}),body:has(#outcome-{class}:checked) section.feature:not(:has(.sc.{class})){{display:none}}"
        );
    }
    for i in 0..tags.names.len() {
        let _ = writeln!(
            css,
            "body:has(#tag-{i}:checked) .sc:not(.tag-{i}),body:has(#tag-{i}:checked) section.feature:not(:has(.sc.tag-{i})){{display:none}}"
        );
    }
    css
}

/// Outcomes per tag (KEP tags first), each tag a label that sets the tag
/// filter.
fn tally(out: &mut String, run: &Run, tags: &Tags) {
    let mut by_tag: BTreeMap<usize, Totals> = BTreeMap::new();
    for s in run.features.iter().flat_map(|f| &f.scenarios) {
        for t in &s.tags {
            if let Some(i) = tags.index(t) {
                by_tag.entry(i).or_default().add(s);
            }
        }
    }
    if by_tag.is_empty() {
        return;
    }
    out.push_str("<details class=\"listing\" open=\"open\"><summary>outcomes by KEP and tag</summary>\n<table class=\"tally\">\n<tr><th>tag</th><th>scenarios</th><th>passed</th><th>with deviation</th><th>failed</th><th>skipped</th><th>not implemented</th></tr>\n");
    for (i, t) in by_tag {
        let _ = writeln!(
            out,
            "<tr><td><label for=\"tag-{i}\">{}</label></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&tags.names[i]),
            t.scenarios,
            t.passed - t.with_deviation,
            t.with_deviation,
            t.failed,
            t.skipped,
            t.not_implemented
        );
    }
    out.push_str("</table>\n</details>\n");
}

/// One row per scenario, failures first, with why a scenario was skipped
/// or which step failed.
fn index(out: &mut String, run: &Run, tags: &Tags) {
    let mut rows: Vec<(usize, usize)> = run
        .features
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| (0..f.scenarios.len()).map(move |si| (fi, si)))
        .collect();
    rows.sort_by_key(|&(fi, si)| !first(&run.features[fi].scenarios[si]));
    out.push_str("<table class=\"index\">\n");
    for (fi, si) in rows {
        let f = &run.features[fi];
        let s = &f.scenarios[si];
        let (cls, word) = outcome(s);
        let why = match (&s.status, s.failed_step()) {
            (Status::Skipped { reason }, _) => escape(reason),
            (Status::Failed, Some(st)) => format!(
                "failed step, line {}: {} {}",
                st.line,
                escape(st.keyword.trim()),
                escape(&st.text)
            ),
            _ => String::new(),
        };
        let objects = s
            .artifacts
            .as_deref()
            .map(|a| format!(" <a class=\"objects\" href=\"{}/\">objects</a>", escape(a)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td><span class=\"badge {}\">{}</span></td><td><a href=\"#{}\">{}</a>{objects}</td><td class=\"path\">{}:{}</td><td class=\"reason\">{why}</td></tr>",
            tags.classes(s),
            cls,
            word,
            anchor(fi, si),
            escape(&s.name),
            escape(&f.path),
            s.line
        );
    }
    out.push_str("</table>\n");
}

fn feature(out: &mut String, fi: usize, f: &Feature, tags: &Tags) {
    let _ = writeln!(
        out,
        "<section class=\"feature\">\n<h2>Feature: {}</h2>\n<p class=\"path\">{}</p>",
        escape(&f.name),
        escape(&f.path)
    );
    for (si, s) in f.scenarios.iter().enumerate() {
        if first(s) {
            // Shown in full in the Failed section at the top.
            let (cls, word) = outcome(s);
            let _ = writeln!(
                out,
                "<p class=\"moved {}\"><span class=\"badge {cls}\">{word}</span><a href=\"#{}\">{}</a> (line {}, shown under Failed)</p>",
                tags.classes(s),
                anchor(fi, si),
                escape(&s.name),
                s.line
            );
        } else {
            scenario(out, &anchor(fi, si), s, tags);
        }
    }
    out.push_str("</section>\n");
}

/// Where each step that ran sits on the timeline's clock.
fn step_marks(s: &ScenarioResult, t: &Timeline) -> Vec<StepMark> {
    let Some(origin) = t.origin else {
        return Vec::new();
    };
    s.steps
        .iter()
        .enumerate()
        .filter_map(|(i, st)| {
            let since = st.started?.duration_since(origin);
            let at = std::time::Duration::try_from(since).ok()?;
            Some(StepMark {
                number: i + 1,
                at,
                title: format!(
                    "{}. line {}: {} {}",
                    i + 1,
                    st.line,
                    st.keyword.trim(),
                    st.text
                ),
            })
        })
        .collect()
}

fn scenario(out: &mut String, id: &str, s: &ScenarioResult, tags: &Tags) {
    let (cls, word) = outcome(s);
    let _ = writeln!(
        out,
        "<article id=\"{id}\" class=\"{}\">\n<h3><span class=\"badge {cls}\">{word}</span>{}</h3>",
        tags.classes(s),
        escape(&s.name)
    );
    if let Some(a) = &s.artifacts {
        let _ = writeln!(
            out,
            "<p class=\"meta\"><a class=\"objects\" href=\"{0}/\">the objects and timeline as the scenario left them: {0}/</a></p>",
            escape(a)
        );
    }
    if !s.deviations.is_empty() {
        out.push_str("<ul class=\"deviations\">\n");
        for d in &s.deviations {
            let _ = writeln!(out, "<li>declared deviation: {}</li>", escape(d));
        }
        out.push_str("</ul>\n");
    }
    let tags = s
        .tags
        .iter()
        .map(|t| escape(t))
        .collect::<Vec<_>>()
        .join(" ");
    let _ = writeln!(
        out,
        "<p class=\"meta\">line {} · {:.2}s{}{}</p>",
        s.line,
        s.duration.as_secs_f64(),
        if tags.is_empty() {
            String::new()
        } else {
            format!(" · {tags}")
        },
        match &s.status {
            Status::Skipped { reason } => format!(" · skipped: {}", escape(reason)),
            _ => String::new(),
        }
    );
    let marks = s
        .timeline
        .as_ref()
        .map(|t| step_marks(s, t))
        .unwrap_or_default();
    out.push_str("<ol class=\"steps\">\n");
    for (i, st) in s.steps.iter().enumerate() {
        let not_run =
            matches!(&st.status, Status::Skipped { reason } if reason == NOT_RUN_AFTER_FAILURE);
        let at = marks
            .iter()
            .find(|m| m.number == i + 1)
            .map(|m| format!(" <span class=\"at\">at +{:.2}s</span>", m.at.as_secs_f64()))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<li class=\"{}\"><span class=\"kw\">{}</span> {} <span class=\"line\">line {} · {}</span>{at}",
            if not_run { "not-run" } else { class(&st.status) },
            escape(st.keyword.trim()),
            escape(&st.text),
            st.line,
            if not_run { "not run" } else { st.status.word() }
        );
        if let Some(m) = &st.message {
            let _ = write!(out, "<pre>{}</pre>", escape(m));
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ol>\n");
    // The violation is shown once: a failed step's message usually is it.
    let shown = |text: &str| {
        s.steps
            .iter()
            .filter_map(|st| st.message.as_deref())
            .any(|m| m.contains(text.lines().next().unwrap_or(text)))
    };
    if let Some(v) = s.violation.as_ref().filter(|v| !shown(&v.to_string())) {
        let _ = writeln!(
            out,
            "<div class=\"violation\"><pre>{}</pre></div>",
            escape(&v.to_string())
        );
    }
    if let Some(t) = &s.timeline {
        if !t.is_empty() {
            out.push_str("<div class=\"picture\">\n");
            out.push_str(&swimlane::render(t, s.violation.as_ref(), &marks));
            out.push_str("</div>\n");
            timeline_listing(out, t, s.violation.as_ref().map(|v| v.seq));
        }
    }
    out.push_str("</article>\n");
}

/// Entries listed in full up to this many; longer timelines show the head,
/// the lines around the violation and the tail.
const LISTING_LIMIT: usize = 2000;

fn timeline_listing(out: &mut String, t: &Timeline, mark: Option<u64>) {
    let n = t.len() as u64;
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    if t.len() <= LISTING_LIMIT {
        ranges.push((0, n.saturating_sub(1)));
    } else {
        let half = (LISTING_LIMIT / 4) as u64;
        ranges.push((0, half - 1));
        if let Some(m) = mark {
            ranges.push((m.saturating_sub(half), m.saturating_add(half).min(n - 1)));
        }
        ranges.push((n - half, n - 1));
    }
    let _ = writeln!(
        out,
        "<details class=\"listing\"><summary>timeline ({} entries)</summary><pre>",
        t.len()
    );
    let mut shown_to: Option<u64> = None;
    for (from, to) in ranges {
        let from = shown_to.map_or(from, |s| from.max(s + 1));
        if from > to {
            continue;
        }
        if shown_to.is_some_and(|s| from > s + 1) {
            out.push_str("  …\n");
        }
        for line in t.excerpt(from, to, mark.unwrap_or(u64::MAX)) {
            out.push_str(&escape(&line));
            out.push('\n');
        }
        shown_to = Some(to);
    }
    out.push_str("</pre></details>\n");
}
