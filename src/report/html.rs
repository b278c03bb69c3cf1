//! A self-contained HTML report: inline CSS, inline SVG pictures, no
//! scripts, no external resources. All user text is escaped.

use super::model::{Feature, Run, Scenario, Status};
use super::{escape, swimlane};
use crate::history::Timeline;
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
";

/// The class and word of a scenario's outcome (a pass through a declared
/// deviation has its own).
fn outcome(s: &Scenario) -> (&'static str, &'static str) {
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
pub fn render(run: &Run) -> String {
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
    index(&mut out, run);
    out.push_str(&super::comparison::html(&super::comparison::table(
        run, anchor,
    )));
    for (fi, f) in run.features.iter().enumerate() {
        feature(&mut out, fi, f);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn anchor(fi: usize, si: usize) -> String {
    format!("s{fi}-{si}")
}

fn index(out: &mut String, run: &Run) {
    out.push_str("<table class=\"index\">\n");
    for (fi, f) in run.features.iter().enumerate() {
        for (si, s) in f.scenarios.iter().enumerate() {
            let (cls, word) = outcome(s);
            let _ = writeln!(
                out,
                "<tr><td><span class=\"badge {}\">{}</span></td><td><a href=\"#{}\">{}</a></td><td class=\"path\">{}</td></tr>",
                cls,
                word,
                anchor(fi, si),
                escape(&s.name),
                escape(&f.name)
            );
        }
    }
    out.push_str("</table>\n");
}

fn feature(out: &mut String, fi: usize, f: &Feature) {
    let _ = writeln!(
        out,
        "<section>\n<h2>Feature: {}</h2>\n<p class=\"path\">{}</p>",
        escape(&f.name),
        escape(&f.path)
    );
    for (si, s) in f.scenarios.iter().enumerate() {
        scenario(out, &anchor(fi, si), s);
    }
    out.push_str("</section>\n");
}

fn scenario(out: &mut String, id: &str, s: &Scenario) {
    let (cls, word) = outcome(s);
    let _ = writeln!(
        out,
        "<article id=\"{id}\" class=\"{cls}\">\n<h3><span class=\"badge {cls}\">{word}</span>{}</h3>",
        escape(&s.name)
    );
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
    out.push_str("<ol class=\"steps\">\n");
    for st in &s.steps {
        let _ = write!(
            out,
            "<li class=\"{}\"><span class=\"kw\">{}</span> {} <span class=\"line\">line {} · {}</span>",
            class(&st.status),
            escape(st.keyword.trim()),
            escape(&st.text),
            st.line,
            st.status.word()
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
            out.push_str(&swimlane::render(t, s.violation.as_ref()));
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
