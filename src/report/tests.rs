use super::model::*;
use super::*;
use crate::history::fixture::TimelineBuilder;
use crate::history::rules::no_mixed_revisions;
use crate::history::Clause;
use std::time::Duration;

const NASTY: &str = "a <b> & \"c\" 'd' <script>alert(1)</script> \u{1} ]]>";

fn step(keyword: &str, text: &str, line: u32, status: Status, message: Option<&str>) -> Step {
    Step {
        keyword: keyword.into(),
        text: text.into(),
        line,
        status,
        message: message.map(str::to_string),
        started: None,
    }
}

fn sample_run() -> Run {
    let mut b = TimelineBuilder::new();
    b.ready_set("web", 2, "web-aaa");
    b.at(1.0).terminate("web-1").terminate("web-0");
    b.at(1.5).delete_pod("web-1");
    b.at(2.0).create_pod("web-1", "web-bbb");
    b.at(2.5).set_status(
        "web",
        serde_json::json!({"readyReplicas": 0, "currentRevision": "web-aaa", "updateRevision": "web-bbb",
            "conditions": [{"type": "Progressing", "status": "True", "reason": "RolloutInProgress"}]}),
    );
    b.at(3.0).delete_pod("web-0");
    let mut t = b.build();
    let origin = jiff::Timestamp::from_second(1_800_000_000).unwrap();
    t.origin = Some(origin);
    let at = |secs: i64| Some(origin + jiff::SignedDuration::from_millis(secs));
    let violation = no_mixed_revisions(
        &t,
        &Clause::new("KEP-3541 Proposed Recreate Strategy Algorithm", NASTY),
        6,
        "web",
        None,
    )
    .unwrap_err();
    let failed = ScenarioResult {
        name: format!("fails {NASTY}"),
        line: 12,
        tags: vec!["@kep-3541".into(), "@recreate".into()],
        status: Status::Failed,
        steps: vec![
            Step {
                started: at(0),
                ..step("Given ", "a StatefulSet \"web\"", 13, Status::Passed, None)
            },
            Step {
                started: at(900),
                ..step(
                    "Then ",
                    "no pod of the update revision was created while a pod of another revision existed",
                    14,
                    Status::Failed,
                    Some(&format!("step failed: {NASTY}")),
                )
            },
            step(
                "And ",
                "skipped after failure",
                15,
                Status::Skipped {
                    reason: NOT_RUN_AFTER_FAILURE.into(),
                },
                None,
            ),
        ],
        started: None,
        duration: Duration::from_millis(3250),
        timeline: Some(t),
        violation: Some(violation),
        deviations: Vec::new(),
        round: None,
        facts: Vec::new(),
        artifacts: Some("failed/recreate-L12-fails".into()),
    };
    let passed = ScenarioResult {
        name: "passes".into(),
        line: 20,
        tags: vec![],
        status: Status::Passed,
        steps: vec![step("Given ", "nothing", 21, Status::Passed, None)],
        started: None,
        duration: Duration::from_millis(10),
        timeline: None,
        violation: None,
        deviations: Vec::new(),
        round: None,
        facts: Vec::new(),
        artifacts: None,
    };
    let skipped = ScenarioResult {
        name: "skipped".into(),
        line: 30,
        tags: vec!["@needs-real-cluster".into()],
        status: Status::Skipped {
            reason: format!("no cluster {NASTY}"),
        },
        steps: vec![],
        started: None,
        duration: Duration::ZERO,
        timeline: None,
        violation: None,
        deviations: Vec::new(),
        round: None,
        facts: Vec::new(),
        artifacts: None,
    };
    let todo = ScenarioResult {
        name: "todo".into(),
        line: 40,
        tags: vec![],
        status: Status::NotImplemented,
        steps: vec![step(
            "When ",
            "something new",
            41,
            Status::NotImplemented,
            None,
        )],
        started: None,
        duration: Duration::ZERO,
        timeline: None,
        violation: None,
        deviations: Vec::new(),
        round: None,
        facts: Vec::new(),
        artifacts: None,
    };
    Run {
        features: vec![
            Feature {
                name: format!("Recreate {NASTY}"),
                path: "features/recreate.feature".into(),
                scenarios: vec![failed, passed],
            },
            Feature {
                name: "Other".into(),
                path: "features/other.feature".into(),
                scenarios: vec![skipped, todo],
            },
        ],
        duration: Duration::from_secs(4),
        target: "embedded".into(),
        properties: vec![("kepspec.cluster.version".into(), "v1.37.0".into())],
        problems: Vec::new(),
    }
}

/// A minimal well-formedness check: balanced tags, quoted attributes, known
/// entities, no stray `<` or `&`. `void` lists HTML elements without end tags.
/// Returns the element names in document order.
fn check_markup(doc: &str, void: &[&str]) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = doc;
    let check_text = |text: &str| -> Result<(), String> {
        let mut t = text;
        while let Some(i) = t.find('&') {
            let after = &t[i + 1..];
            let end = after
                .find(';')
                .ok_or_else(|| format!("bad entity in {text:?}"))?;
            let ent = &after[..end];
            let ok = matches!(ent, "amp" | "lt" | "gt" | "quot" | "#39")
                || (ent.starts_with('#') && ent[1..].bytes().all(|b| b.is_ascii_digit()));
            if !ok {
                return Err(format!("unknown entity &{ent};"));
            }
            t = &after[end..];
        }
        if text
            .chars()
            .any(|c| (c as u32) < 0x20 && !"\t\n\r".contains(c))
        {
            return Err("control character".into());
        }
        Ok(())
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open])?;
        let tail = &rest[open..];
        if let Some(stripped) = tail.strip_prefix("<?") {
            let end = stripped.find("?>").ok_or("unterminated declaration")?;
            rest = &stripped[end + 2..];
            continue;
        }
        if let Some(stripped) = tail.strip_prefix("<!") {
            let end = stripped.find('>').ok_or("unterminated doctype")?;
            rest = &stripped[end + 1..];
            continue;
        }
        let close = tail.find('>').ok_or("unterminated tag")?;
        let tag = &tail[1..close];
        rest = &tail[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop().ok_or_else(|| format!("stray </{name}>"))?;
            if top != name.trim() {
                return Err(format!("</{name}> closes <{top}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("bad tag <{tag}>"));
        }
        // Attributes: name="value" pairs with escaped values.
        let mut attrs = body[name.len()..].trim();
        while !attrs.is_empty() {
            let eq = attrs
                .find("=\"")
                .ok_or_else(|| format!("unquoted attribute in <{tag}>"))?;
            let aname = attrs[..eq].trim();
            if aname.is_empty() || aname.contains(char::is_whitespace) {
                return Err(format!("bad attribute name in <{tag}>"));
            }
            let vrest = &attrs[eq + 2..];
            let vend = vrest.find('"').ok_or("unterminated attribute")?;
            check_text(&vrest[..vend])?;
            if vrest[..vend].contains('<') {
                return Err("< in attribute".into());
            }
            attrs = vrest[vend + 1..].trim_start();
        }
        names.push(name.clone());
        if !self_closing && !void.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    check_text(rest)?;
    if let Some(open) = stack.pop() {
        return Err(format!("<{open}> never closed"));
    }
    Ok(names)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn attr<'a>(doc: &'a str, element_start: &str, name: &str) -> Option<&'a str> {
    let i = doc.find(element_start)?;
    let tag_end = i + doc[i..].find('>')?;
    let tag = &doc[i..tag_end];
    let key = format!(" {name}=\"");
    let a = tag.find(&key)? + key.len();
    let len = tag[a..].find('"')?;
    Some(&tag[a..a + len])
}

#[test]
fn the_markup_checker_rejects_broken_documents() {
    assert!(check_markup("<a><b></a></b>", &[]).is_err());
    assert!(check_markup("<a>x < y</a>", &[]).is_err());
    assert!(check_markup("<a>&nbsp;</a>", &[]).is_err());
    assert!(check_markup("<a x=1></a>", &[]).is_err());
    assert!(check_markup("<a>", &[]).is_err());
    assert!(check_markup("<a x=\"1\"><b/>&amp;</a>", &[]).is_ok());
}

#[test]
fn escape_covers_markup_and_control_characters() {
    assert_eq!(
        escape("<a href=\"x\">'&'</a>\u{7}\n"),
        "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\u{FFFD}\n"
    );
}

#[test]
fn junit_is_well_formed_and_carries_the_real_messages() {
    let run = sample_run();
    let xml = junit::render(&run);
    let names = check_markup(&xml, &[]).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(names.iter().filter(|n| *n == "testsuite").count(), 2);
    assert_eq!(names.iter().filter(|n| *n == "testcase").count(), 4);
    assert_eq!(names.iter().filter(|n| *n == "failure").count(), 2);
    assert_eq!(names.iter().filter(|n| *n == "skipped").count(), 1);
    // The headline: the failing step and its place, then what it found.
    let expected = format!(
        "Then no pod of the update revision was created while a pod of another revision existed (features/recreate.feature:14): step failed: {NASTY}"
    )
    .replace('\u{1}', "\u{FFFD}");
    assert_eq!(
        unescape(attr(&xml, "<failure", "message").unwrap()),
        expected
    );
    assert_eq!(
        attr(&xml, "<testcase", "classname"),
        Some("features.recreate")
    );
    assert_eq!(
        attr(&xml, "<testcase", "file"),
        Some("features/recreate.feature")
    );
    assert!(attr(&xml, "<testcase", "line").is_some());
    assert_eq!(attr(&xml, "<testsuites", "tests"), Some("4"));
    assert_eq!(attr(&xml, "<testsuites", "failures"), Some("2"));
    assert_eq!(attr(&xml, "<testcase", "time"), Some("3.250"));
    assert!(xml.contains("type=\"NotImplemented\""));
    assert!(unescape(attr(&xml, "<skipped", "message").unwrap()).starts_with("no cluster a <b>"));
    assert!(xml.contains("KEP-3541 Proposed Recreate Strategy Algorithm"));
    assert!(!xml.contains("<script>"));
}

#[test]
fn json_round_trips() {
    let run = sample_run();
    let text = json::render(&run).unwrap();
    let back = json::parse(&text).unwrap();
    assert_eq!(back, run);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["features"][0]["scenarios"][0]["status"]["status"],
        "failed"
    );
    assert_eq!(
        v["features"][1]["scenarios"][0]["status"]["status"],
        "skipped"
    );
    assert!(v["features"][1]["scenarios"][0]["status"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("no cluster"));
    assert_eq!(run.totals().failed, 1);
    assert!(!run.passed());
}

#[test]
fn html_is_self_contained_escaped_and_draws_the_timeline() {
    let run = sample_run();
    let html = html::render(&run);
    let void = ["meta", "br", "hr", "img", "link", "input"];
    check_markup(&html, &void).unwrap_or_else(|e| panic!("{e}"));
    assert!(!html.contains("<script"), "user text must be escaped");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    for bad in ["src=", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(bad), "external resource: {bad}");
    }
    assert!(html.contains("<svg"));
    // One lane per ordinal, two revisions in the legend, the violation line.
    assert!(html.contains(">web-0</text>") && html.contains(">web-1</text>"));
    assert!(html.contains("revision web-aaa") && html.contains("revision web-bbb"));
    assert!(html.contains("class=\"violation\""));
    assert!(html.contains("stroke=\"#d00\""));
    assert!(html.contains("url(#hatch-"));
    assert!(html.contains("class=\"gone\""));
    assert!(html.contains("skipped after failure"));
    assert!(html.contains("<details class=\"listing\"><summary>timeline (12 entries)"));
    assert!(
        html.contains("&gt; #9 +2.000s pod web-1 ADDED"),
        "the violation's entry is marked"
    );
}

#[test]
fn html_puts_failures_first_and_explains_every_row() {
    let html = html::render(&sample_run());
    // The Failed section comes before the first feature section, and the
    // index lists the failed and not-implemented scenarios before the rest.
    let failed_section = html.find("<h2>Failed (2)</h2>").expect("a Failed section");
    let first_feature = html.find("<h2>Feature:").unwrap();
    assert!(failed_section < first_feature);
    let index = &html[html.find("<table class=\"index\">").unwrap()..];
    let rows: Vec<&str> = index
        .split("<tr class=\"")
        .skip(1)
        .take(4)
        .filter_map(|r| r.split('"').next())
        .map(|r| r.split(' ').nth(1).unwrap_or_default())
        .collect();
    assert_eq!(rows, ["failed", "not-implemented", "passed", "skipped"]);
    // Why each row is what it is: the skip reason, the failing step.
    assert!(index.contains("no cluster a &lt;b&gt;"));
    assert!(index.contains("failed step, line 14: Then no pod of the update revision"));
    // The failed scenario's objects, linked relative to the report.
    assert!(html.contains("href=\"failed/recreate-L12-fails/\""));
    // The step after the failing one is shown as not run.
    assert!(html.contains("<li class=\"not-run\"><span class=\"kw\">And</span> skipped after failure <span class=\"line\">line 15 · not run</span>"));
    // The feature section keeps a pointer to the scenario shown above.
    assert!(html.contains("shown under Failed"));
}

#[test]
fn html_filters_by_outcome_and_tag_and_tallies_per_kep() {
    let html = html::render(&sample_run());
    assert!(html.contains("<input type=\"radio\" name=\"outcome\" id=\"outcome-failed\"><label for=\"outcome-failed\">failed (1)</label>"));
    // KEP tags first among the tags.
    let tags: Vec<&str> = html
        .split("name=\"tag\" id=\"tag-")
        .skip(2)
        .filter_map(|s| s.split("</label>").next())
        .filter_map(|s| s.rsplit('>').next())
        .collect();
    assert_eq!(tags, ["@kep-3541", "@needs-real-cluster", "@recreate"]);
    assert!(html.contains("body:has(#outcome-failed:checked) .sc:not(.failed)"));
    assert!(html.contains("body:has(#tag-0:checked) .sc:not(.tag-0)"));
    // The tally row of the KEP: one scenario, failed.
    assert!(html.contains("<tr><td><label for=\"tag-0\">@kep-3541</label></td><td>1</td><td>0</td><td>0</td><td>1</td><td>0</td><td>0</td></tr>"));
    // Every scenario's row and article carry its outcome and tag classes.
    assert!(html.contains("class=\"sc failed tag-0 tag-2\""));
}

#[test]
fn swimlane_marks_steps_revisions_and_the_sets_status() {
    let html = html::render(&sample_run());
    // Steps that ran, numbered as in the list, at their time.
    assert!(html.contains("<g class=\"step\"><title>2. line 14: Then no pod"));
    assert!(html.contains("(+0.900s)"));
    assert!(html.contains("<span class=\"at\">at +0.90s</span>"));
    // Which revision is old and which new.
    assert!(html.contains("revision web-aaa (old)"));
    assert!(html.contains("revision web-bbb (new)"));
    // The set's own lanes: status counts and the Progressing condition.
    assert!(html.contains(">web status</text>"));
    assert!(html.contains(">web Progressing</text>"));
    assert!(html.contains("Progressing=True reason=RolloutInProgress"));
    assert!(html.contains("updateRevision web-bbb"));
}

#[test]
fn swimlane_colours_are_stable_by_first_appearance() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-1", "r2")
        .create_pod("web-0", "r1")
        .create_pod("web-2", "r2");
    let lives = crate::history::pod_lives(&b.build());
    let c = swimlane::revision_colours(&lives);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].0, "r2");
    assert_eq!(c[1].0, "r1");
    assert_ne!(c[0].1, c[1].1);
    assert_eq!(swimlane::tick_step(Duration::from_secs(7)), 1.0);
    assert_eq!(swimlane::tick_step(Duration::from_millis(500)), 0.1);
    assert_eq!(swimlane::tick_step(Duration::from_secs(95)), 10.0);
}

#[test]
fn swimlane_of_an_empty_timeline_is_valid() {
    let svg = swimlane::render(&crate::history::Timeline::new(), None, &[]);
    check_markup(&svg, &[]).unwrap();
}

#[test]
#[ignore = "writes a sample report to $KEPSPEC_SAMPLE_DIR for inspection"]
fn write_sample_report() {
    let dir = std::env::var("KEPSPEC_SAMPLE_DIR").unwrap_or_else(|_| "/tmp".into());
    let run = sample_run();
    let dir = std::path::Path::new(&dir);
    write_file(&dir.join("report.html"), &html::render(&run)).unwrap();
    write_file(&dir.join("junit.xml"), &junit::render(&run)).unwrap();
    let t = run.features[0].scenarios[0].timeline.as_ref().unwrap();
    let v = run.features[0].scenarios[0].violation.as_ref();
    write_file(&dir.join("lanes.svg"), &swimlane::render(t, v, &[])).unwrap();
}

#[test]
fn swimlanes_keep_sets_apart() {
    let mut b = TimelineBuilder::new();
    b.create_pod("web-0", "a")
        .create_pod("db-0", "x")
        .create_pod("web-1", "a")
        .create_pod("loner", "a");
    let svg = swimlane::render(&b.build(), None, &[]);
    let lanes: Vec<&str> = svg
        .split("class=\"lane\"")
        .skip(1)
        .filter_map(|s| s.split('>').nth(1))
        .filter_map(|s| s.split('<').next())
        .collect();
    assert_eq!(lanes, ["db-0", "web-0", "web-1", "loner"]);
}

/// The headless browser the HTML report is checked in, if installed; its
/// absence fails under CI and is a skip elsewhere.
fn chromium() -> Option<std::path::PathBuf> {
    let found = [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(std::path::PathBuf::from)
    .find(|p| p.is_file());
    if found.is_none() {
        // CI installs Chromium (.ci/run); there its absence is a failure.
        assert!(
            std::env::var("CI").is_err(),
            "Chromium is not installed, but CI must render the report"
        );
        eprintln!("skipped: Chromium is not installed (apt-get install chromium)");
    }
    found
}

#[test]
fn html_report_renders_in_headless_chromium_without_console_errors() {
    let Some(browser) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("index.html");
    // With a comparison scenario, so the comparison table renders too.
    let mut run = sample_run();
    let mut compared = ScenarioResult::new(
        "EnforcedRollingUpdate under Parallel: pods left in ImagePullBackOff, then a fix that works",
        60,
        vec!["@comparison".into()],
        Status::Passed,
    );
    compared.facts = [
        ("strategy", "EnforcedRollingUpdate"),
        ("policy", "Parallel"),
        ("fix", "works"),
        ("outcome", "recovers"),
        ("most unavailable", "1"),
        ("in sequence", "yes"),
        ("mixed revisions", "yes"),
        ("time to recover", "0.4"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    run.features.push(super::model::Feature {
        name: "comparison".into(),
        path: "features/draft-enforced-rolling-update/comparison.feature".into(),
        scenarios: vec![compared],
    });
    let comparison_anchor = format!("#s{}-0", run.features.len() - 1);
    std::fs::write(&page, html::render(&run)).unwrap();
    let (dom, log, ok) = headless(&browser, dir.path(), &page, &["--dump-dom"]);
    assert!(ok, "chromium failed: {log}");
    // The page rendered: the scenario, its swimlane picture and the violation line.
    assert!(
        dom.contains("<svg"),
        "no swimlane picture in the rendered DOM"
    );
    assert!(dom.contains("KEP-3541 Proposed Recreate Strategy Algorithm"));
    // The comparison table, its row and a cell linked to the scenario.
    assert!(
        dom.contains("<table class=\"comparison\">"),
        "no comparison table"
    );
    assert!(dom.contains("EnforcedRollingUpdate, Parallel"));
    assert!(dom.contains(&format!("<a href=\"{comparison_anchor}\"")));
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
}

/// Runs headless Chromium on `page` with `extra` arguments; returns its
/// standard output, its log and whether it succeeded.
fn headless(
    browser: &std::path::Path,
    dir: &std::path::Path,
    page: &std::path::Path,
    extra: &[&str],
) -> (String, String, bool) {
    let profile = dir.join("profile");
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

/// The report's filters, worked by the browser's own CSS: with a filter
/// checked, exactly the matching scenarios stay visible. (The report has no
/// script; the test adds one to its copy to read what is displayed.)
#[test]
fn html_filters_work_in_headless_chromium() {
    let Some(browser) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = html::render(&sample_run());
    let probe = "<script>document.body.setAttribute('data-visible',[...document.querySelectorAll('article.sc')].filter(a=>getComputedStyle(a).display!='none').map(a=>a.id).join(','));document.body.setAttribute('data-rows',[...document.querySelectorAll('table.index tr')].filter(r=>getComputedStyle(r).display!='none').length);document.body.setAttribute('data-steps',document.querySelectorAll('svg g.step').length);document.body.setAttribute('data-lanes',[...document.querySelectorAll('svg text.set')].map(t=>t.textContent).join(','));</script></body>";
    let visible = |checked: &str| {
        let page = dir.path().join(format!("{checked}.html"));
        let doc = html
            .replace(" checked=\"checked\"", "")
            .replace(
                &format!("id=\"{checked}\""),
                &format!("id=\"{checked}\" checked=\"checked\""),
            )
            .replace("</body>", probe);
        std::fs::write(&page, doc).unwrap();
        let (dom, log, ok) = headless(&browser, dir.path(), &page, &["--dump-dom"]);
        assert!(ok, "chromium failed: {log}");
        let attr = |name: &str| {
            dom.split(&format!("{name}=\""))
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or_else(|| panic!("no {name} in the rendered page: {log}"))
                .to_string()
        };
        (
            attr("data-visible"),
            attr("data-rows"),
            attr("data-steps"),
            attr("data-lanes"),
        )
    };
    // Nothing checked but "all": every scenario.
    let (all, rows, steps, lanes) = visible("outcome-all");
    assert_eq!(all, "s0-0,s1-1,s0-1,s1-0");
    assert_eq!(rows, "4");
    // The two steps that ran are marked; the set has its two lanes.
    assert_eq!(steps, "2");
    assert_eq!(lanes, "web status,web Progressing");
    assert_eq!(visible("outcome-failed").0, "s0-0");
    assert_eq!(visible("outcome-failed").1, "1");
    assert_eq!(visible("outcome-skipped").0, "s1-0");
    assert_eq!(visible("outcome-not-implemented").0, "s1-1");
    // Tag 1 is @needs-real-cluster (KEP tags first, then by name).
    assert_eq!(visible("tag-1").0, "s1-0");
    assert_eq!(visible("tag-2").0, "s0-0");
    // And a screenshot of the whole page is a picture, not an error page.
    let page = dir.path().join("page.html");
    std::fs::write(&page, &html).unwrap();
    let shot = dir.path().join("report.png");
    let (_, log, ok) = headless(
        &browser,
        dir.path(),
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1600",
            "--hide-scrollbars",
        ],
    );
    assert!(ok, "chromium failed: {log}");
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // The width and height in the IHDR chunk are the window's.
    assert_eq!(&png[16..24], &[0, 0, 5, 0, 0, 0, 6, 64]);
}
