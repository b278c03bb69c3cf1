//! The benchmark report: one table per benchmark (what, N, result, goal,
//! verdict), the notes that explain how it was measured, and the machine it
//! ran on, rendered as Markdown.

use std::fmt::Write as _;
use std::time::Duration;

use super::machine::Machine;

/// How a measurement compares with its goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The goal is met.
    Met,
    /// The goal is missed.
    Missed,
    /// A measurement without a goal, reported for context.
    Info,
    /// Not measured (quick mode, or a prerequisite is missing).
    Skipped,
    /// The benchmark failed before producing this measurement.
    Error,
}

impl Verdict {
    /// `Met` when `ok`, `Missed` otherwise.
    pub fn of(ok: bool) -> Verdict {
        if ok {
            Verdict::Met
        } else {
            Verdict::Missed
        }
    }

    /// The word shown in the verdict column.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "**missed**",
            Verdict::Info => "info",
            Verdict::Skipped => "skipped",
            Verdict::Error => "**error**",
        }
    }
}

/// One measured quantity: a row of a benchmark's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// What was measured.
    pub what: String,
    /// The size of the input (objects, pods, entries, iterations).
    pub n: String,
    /// The measured value, with its unit.
    pub result: String,
    /// The goal, or `—` when there is none.
    pub goal: String,
    /// How the result compares with the goal.
    pub verdict: Verdict,
}

impl Row {
    /// A row with a goal and its verdict.
    pub fn goal(
        what: impl Into<String>,
        n: impl ToString,
        result: impl Into<String>,
        goal: impl Into<String>,
        met: bool,
    ) -> Row {
        Row {
            what: what.into(),
            n: n.to_string(),
            result: result.into(),
            goal: goal.into(),
            verdict: Verdict::of(met),
        }
    }

    /// A row reported for context, without a goal.
    pub fn info(what: impl Into<String>, n: impl ToString, result: impl Into<String>) -> Row {
        Row {
            what: what.into(),
            n: n.to_string(),
            result: result.into(),
            goal: "—".to_string(),
            verdict: Verdict::Info,
        }
    }

    /// A row for something not measured, with the reason as its result.
    pub fn skipped(what: impl Into<String>, why: impl Into<String>) -> Row {
        Row {
            what: what.into(),
            n: "—".to_string(),
            result: why.into(),
            goal: "—".to_string(),
            verdict: Verdict::Skipped,
        }
    }
}

/// The outcome of one benchmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The benchmark's name (what `--only` matches).
    pub name: String,
    /// A heading in words.
    pub title: String,
    /// The measurements.
    pub rows: Vec<Row>,
    /// How it was measured, and anything a reader needs to interpret it.
    pub notes: Vec<String>,
    /// Wall time of the whole benchmark, setup included.
    pub elapsed: Duration,
}

impl Section {
    /// An empty section.
    pub fn new(name: &str, title: &str) -> Section {
        Section {
            name: name.to_string(),
            title: title.to_string(),
            rows: Vec::new(),
            notes: Vec::new(),
            elapsed: Duration::ZERO,
        }
    }

    /// Adds a row.
    pub fn row(&mut self, row: Row) -> &mut Section {
        self.rows.push(row);
        self
    }

    /// Adds a note.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Section {
        self.notes.push(note.into());
        self
    }

    /// A section for a benchmark that failed, with the error as its only row.
    pub fn failed(name: &str, title: &str, err: &anyhow::Error) -> Section {
        let mut s = Section::new(name, title);
        s.rows.push(Row {
            what: "benchmark".to_string(),
            n: "—".to_string(),
            result: format!("{err:#}"),
            goal: "—".to_string(),
            verdict: Verdict::Error,
        });
        s
    }
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Report {
    /// Quick (smoke test) or full mode.
    pub quick: bool,
    /// When the run started.
    pub started: jiff::Timestamp,
    /// Wall time of the whole run.
    pub elapsed: Duration,
    /// The machine and build.
    pub machine: Machine,
    /// One section per benchmark run, in order.
    pub sections: Vec<Section>,
}

impl Report {
    /// Rows whose goal was missed or whose benchmark failed, with the name
    /// of their benchmark.
    pub fn problems(&self) -> Vec<(&str, &Row)> {
        self.sections
            .iter()
            .flat_map(|s| s.rows.iter().map(move |r| (s.name.as_str(), r)))
            .filter(|(_, r)| matches!(r.verdict, Verdict::Missed | Verdict::Error))
            .collect()
    }

    /// The report as Markdown: machine facts, then one table per benchmark.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let mode = if self.quick { "quick" } else { "full" };
        let _ = writeln!(out, "## Benchmarks ({mode} mode)\n");
        let _ = writeln!(
            out,
            "Run at {} in {:.1} s.\n",
            self.started.strftime("%Y-%m-%d %H:%M UTC"),
            self.elapsed.as_secs_f64()
        );
        out.push_str(&self.machine.to_markdown());
        for s in &self.sections {
            let _ = writeln!(
                out,
                "\n### {} (`{}`, {:.1} s)\n",
                s.title,
                s.name,
                s.elapsed.as_secs_f64()
            );
            out.push_str("| what | N | result | goal | verdict |\n");
            out.push_str("|---|---:|---:|---|---|\n");
            for r in &s.rows {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    cell(&r.what),
                    cell(&r.n),
                    cell(&r.result),
                    cell(&r.goal),
                    r.verdict.word()
                );
            }
            if !s.notes.is_empty() {
                out.push('\n');
                for n in &s.notes {
                    let _ = writeln!(out, "- {n}");
                }
            }
        }
        out
    }
}

/// A Markdown table cell: pipes escaped, line breaks flattened.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(rows: Vec<Row>) -> Report {
        let mut s = Section::new("startup", "Embedded cluster start");
        s.rows = rows;
        s.note("median of 3");
        Report {
            quick: true,
            started: jiff::Timestamp::UNIX_EPOCH,
            elapsed: Duration::from_secs(2),
            machine: Machine::default(),
            sections: vec![s],
        }
    }

    #[test]
    fn markdown_has_a_table_per_benchmark() {
        let md = report(vec![
            Row::goal("start to /version", 3, "12 ms", "< 50 ms", true),
            Row::info("a | b", 1, "x\ny"),
        ])
        .to_markdown();
        assert!(md.contains("## Benchmarks (quick mode)"));
        assert!(md.contains("### Embedded cluster start (`startup`"));
        assert!(md.contains("| start to /version | 3 | 12 ms | < 50 ms | met |"));
        assert!(md.contains("| a \\| b | 1 | x y | — | info |"));
        assert!(md.contains("- median of 3"));
    }

    #[test]
    fn problems_are_missed_goals_and_errors() {
        let r = report(vec![
            Row::goal("fast", 1, "1 ms", "< 2 ms", true),
            Row::goal("slow", 1, "3 ms", "< 2 ms", false),
            Row::skipped("suite", "quick mode"),
        ]);
        let names: Vec<&str> = r.problems().iter().map(|(_, r)| r.what.as_str()).collect();
        assert_eq!(names, vec!["slow"]);
        let failed = Section::failed("x", "X", &anyhow::anyhow!("boom"));
        assert_eq!(failed.rows[0].verdict, Verdict::Error);
        assert_eq!(failed.rows[0].result, "boom");
    }
}
