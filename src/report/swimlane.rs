//! The timeline picture: an inline SVG with one swimlane per pod ordinal.
//!
//! Each pod life is a bar from creation to deletion coloured by revision
//! (colours assigned by first appearance), with ready intervals drawn solid,
//! the terminating part hatched, and deletion marked with a cross (dashed
//! when the deletion was inferred from a relist). The first violation is a
//! red vertical line with its message. Below the pods, each set has a lane
//! of its status counts and one of its `Progressing` condition; each step
//! that ran is a dashed grey line numbered as in the step list, and the
//! legend names each revision's part (old, new, intermediate). Every mark
//! carries a `<title>` tooltip; no script is involved.

use super::escape;
use super::set_lanes::{revision_roles, set_lanes, Segment};
use crate::history::views::{pod_lives, split_ordinal};
use crate::history::{PodLife, Timeline, Violation};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::Duration;

const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
    "#86bcb6", "#d37295",
];
const NO_REVISION: &str = "#9a9a9a";

/// Numbers the pictures of one process, so each has a hatch pattern of its
/// own: a page hides some pictures (its filters), and a pattern defined in
/// a hidden picture is not drawn in the others.
static PICTURES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
const LEFT: f64 = 110.0;
const PLOT_W: f64 = 820.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 34.0;
const LANE_H: f64 = 26.0;
const BAR_H: f64 = 16.0;

/// A step placed on the picture.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct StepMark {
    /// Its number in the scenario's step list (1-based).
    pub number: usize,
    /// When it started, on the timeline's clock.
    pub at: Duration,
    /// `line N: Keyword text`, for the tooltip.
    pub title: String,
}

/// Revision colours in order of first appearance.
pub(crate) fn revision_colours(lives: &[PodLife]) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for l in lives {
        if let Some(r) = &l.revision {
            if !out.iter().any(|(x, _)| x == r) {
                let c = PALETTE[out.len() % PALETTE.len()];
                out.push((r.clone(), c));
            }
        }
    }
    out
}

/// Tick spacing giving at most ~10 ticks over `end`.
pub(crate) fn tick_step(end: Duration) -> f64 {
    const STEPS: [f64; 16] = [
        0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0,
        3600.0,
    ];
    let e = end.as_secs_f64();
    STEPS
        .iter()
        .copied()
        .find(|s| e / s <= 10.0)
        .unwrap_or_else(|| (e / 10.0).ceil())
}

/// Lanes group pods by set (the name without the ordinal), then ordinal;
/// names without an ordinal get a lane each, last.
fn lane_key(l: &PodLife) -> (bool, String, i64) {
    match split_ordinal(&l.name) {
        Some((parent, o)) => (false, parent.to_string(), i64::from(o)),
        None => (true, l.name.clone(), 0),
    }
}

fn fmt_t(d: Duration) -> String {
    format!("+{:.3}s", d.as_secs_f64())
}

/// Renders the picture of `t` (with `violation`, if any, and the steps'
/// marks) as an `<svg>`.
pub(crate) fn render(t: &Timeline, violation: Option<&Violation>, steps: &[StepMark]) -> String {
    let lives = pod_lives(t);
    let colours = revision_colours(&lives);
    let colour = |r: &Option<String>| {
        r.as_ref()
            .and_then(|r| colours.iter().find(|(x, _)| x == r))
            .map_or(NO_REVISION, |(_, c)| *c)
    };
    let mut lanes: BTreeMap<(bool, String, i64), Vec<&PodLife>> = BTreeMap::new();
    for l in &lives {
        lanes.entry(lane_key(l)).or_default().push(l);
    }
    let sets = set_lanes(t);
    let roles = revision_roles(t);
    let set_lane_count: usize = sets
        .iter()
        .map(|l| usize::from(!l.status.is_empty()) + usize::from(!l.progressing.is_empty()))
        .sum();
    let mut end = t.end();
    if let Some(v) = violation {
        end = end.max(v.at);
    }
    if let Some(last) = steps.iter().map(|m| m.at).max() {
        end = end.max(last);
    }
    let end = if end.is_zero() {
        Duration::from_secs(1)
    } else {
        end
    };
    let x = |d: Duration| LEFT + d.as_secs_f64() / end.as_secs_f64() * PLOT_W;
    let legend_h = 42.0;
    let steps_h = if steps.is_empty() { 0.0 } else { 16.0 };
    let plot_h = LANE_H * (lanes.len() + set_lane_count).max(1) as f64;
    let width = LEFT + PLOT_W + RIGHT;
    let height = TOP + plot_h + 30.0 + steps_h + legend_h + 10.0;
    let hatch = format!(
        "hatch-{}",
        PICTURES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"swimlanes\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\">"
    );
    let _ = writeln!(
        s,
        "<defs><pattern id=\"{hatch}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.15\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#222\" stroke-width=\"2\"/></pattern></defs>",
    );
    // Time axis.
    let axis_y = TOP + plot_h + 4.0;
    let step = tick_step(end);
    let ticks = ((end.as_secs_f64() / step).floor() as usize).min(1000);
    for k in 0..=ticks {
        let tick = k as f64 * step;
        let tx = x(Duration::from_secs_f64(tick));
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{tx:.1}\" y1=\"{TOP}\" x2=\"{tx:.1}\" y2=\"{axis_y:.1}\"/><text class=\"tick\" x=\"{tx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}s</text>",
            axis_y + 14.0,
            trim_float(tick)
        );
    }
    let _ = writeln!(
        s,
        "<text class=\"axis-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">time since start</text>",
        LEFT - 14.0,
        axis_y + 14.0
    );
    // Lanes.
    for (i, (_, group)) in lanes.iter().enumerate() {
        let y = TOP + LANE_H * i as f64;
        let label = group.first().map(|l| l.name.as_str()).unwrap_or_default();
        let _ = writeln!(
            s,
            "<text class=\"lane\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 8.0,
            y + BAR_H - 2.0,
            escape(label)
        );
        for l in group {
            life_bar(&mut s, l, y, colour(&l.revision), t.end(), &x, &hatch);
        }
    }
    // The sets' own lanes, below the pods.
    let mut row = lanes.len();
    for set in &sets {
        for (what, segs) in [("status", &set.status), ("Progressing", &set.progressing)] {
            if segs.is_empty() {
                continue;
            }
            let y = TOP + LANE_H * row as f64;
            row += 1;
            let _ = writeln!(
                s,
                "<text class=\"lane set\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{} {what}</text>",
                LEFT - 8.0,
                y + BAR_H - 2.0,
                escape(&set.name)
            );
            for seg in segs {
                segment_bar(&mut s, seg, y, t.end(), &x);
            }
        }
    }
    // The steps, numbered as in the step list.
    let marks_y = axis_y + 30.0;
    if !steps.is_empty() {
        let _ = writeln!(
            s,
            "<text class=\"axis-label\" x=\"{:.1}\" y=\"{marks_y:.1}\" text-anchor=\"end\">steps</text>",
            LEFT - 14.0
        );
    }
    let mut last_label: Option<f64> = None;
    for m in steps {
        let mx = x(m.at);
        let room = last_label.is_none_or(|l| mx - l >= 14.0);
        let _ = write!(
            s,
            "<g class=\"step\"><title>{} (+{:.3}s)</title><line x1=\"{mx:.1}\" y1=\"{TOP}\" x2=\"{mx:.1}\" y2=\"{:.1}\" stroke=\"#777\" stroke-width=\"1\" stroke-dasharray=\"3,3\"/>",
            escape(&m.title),
            m.at.as_secs_f64(),
            marks_y - 10.0,
        );
        if room {
            let _ = write!(
                s,
                "<text x=\"{mx:.1}\" y=\"{marks_y:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
                m.number
            );
            last_label = Some(mx);
        }
        s.push_str("</g>\n");
    }
    if let Some(v) = violation {
        let vx = x(v.at);
        // The label runs away from the nearer edge and is cut to the room
        // it has there (about 6.6 px a character at the SVG's font size),
        // so it is never clipped by the picture's border.
        let anchor_end = vx > LEFT + PLOT_W / 2.0;
        let room = if anchor_end {
            vx - 4.0
        } else {
            LEFT + PLOT_W + RIGHT - vx - 4.0
        };
        let label_chars = ((room / 6.6) as usize).saturating_sub(fmt_t(v.at).chars().count() + 1);
        let mut msg: String = v
            .message
            .chars()
            .take(label_chars.saturating_sub(1))
            .collect();
        if v.message.chars().count() > label_chars.saturating_sub(1) {
            msg.push('…');
        }
        let _ = writeln!(
            s,
            "<g class=\"violation\"><title>{}</title><line x1=\"{vx:.1}\" y1=\"{:.1}\" x2=\"{vx:.1}\" y2=\"{axis_y:.1}\" stroke=\"#d00\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d00\" text-anchor=\"{}\">{} {}</text></g>",
            escape(&v.to_string()),
            TOP - 16.0,
            vx,
            TOP - 20.0,
            if anchor_end { "end" } else { "start" },
            escape(&fmt_t(v.at)),
            escape(&msg)
        );
    }
    legend(
        &mut s,
        &colours,
        &roles,
        !steps.is_empty(),
        axis_y + 40.0 + steps_h,
        &hatch,
    );
    s.push_str("</svg>\n");
    s
}

fn life_bar(
    s: &mut String,
    l: &PodLife,
    y: f64,
    fill: &str,
    end: Duration,
    x: &impl Fn(Duration) -> f64,
    hatch: &str,
) {
    let stop = l.gone.unwrap_or(end).max(l.created);
    let x0 = x(l.created);
    let w = (x(stop) - x0).max(2.0);
    let title = format!(
        "{} uid={} revision={} created {}{}{}{}",
        l.name,
        l.uid,
        l.revision.as_deref().unwrap_or("none"),
        fmt_t(l.created),
        l.ready
            .iter()
            .map(|(a, b)| format!(
                ", ready {}..{}",
                fmt_t(*a),
                b.map(fmt_t).unwrap_or_else(|| "end".into())
            ))
            .collect::<String>(),
        l.terminating
            .map(|d| format!(", terminating {}", fmt_t(d)))
            .unwrap_or_default(),
        l.gone
            .map(|d| format!(
                ", gone {}{}",
                fmt_t(d),
                if l.gone_inferred { " (inferred)" } else { "" }
            ))
            .unwrap_or_default(),
    );
    let _ = write!(
        s,
        "<g class=\"pod\"><title>{}</title><rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\" fill=\"{fill}\" fill-opacity=\"0.35\" stroke=\"{fill}\"/>",
        escape(&title),
        y
    );
    for (a, b) in &l.ready {
        let ra = x(*a);
        let rb = x(b.unwrap_or(stop).min(stop));
        let _ = write!(
            s,
            "<rect class=\"ready\" x=\"{ra:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"/>",
            y + 3.0,
            (rb - ra).max(1.0),
            BAR_H - 6.0
        );
    }
    if let Some(term) = l.terminating {
        let ta = x(term);
        let _ = write!(
            s,
            "<rect class=\"terminating\" x=\"{ta:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{BAR_H}\" fill=\"url(#{hatch})\"/><line x1=\"{ta:.1}\" y1=\"{:.1}\" x2=\"{ta:.1}\" y2=\"{:.1}\" stroke=\"#222\" stroke-width=\"2\"/>",
            (x(stop) - ta).max(2.0),
            y - 2.0,
            y + BAR_H + 2.0
        );
    }
    if let Some(g) = l.gone {
        let gx = x(g);
        let dash = if l.gone_inferred {
            " stroke-dasharray=\"2,2\""
        } else {
            ""
        };
        let _ = write!(
            s,
            "<path class=\"gone\" d=\"M{:.1} {:.1} L{:.1} {:.1} M{:.1} {:.1} L{:.1} {:.1}\" stroke=\"#000\" stroke-width=\"2\"{dash}/>",
            gx - 4.0,
            y + 4.0,
            gx + 4.0,
            y + BAR_H - 4.0,
            gx + 4.0,
            y + 4.0,
            gx - 4.0,
            y + BAR_H - 4.0
        );
    }
    s.push_str("</g>\n");
}

/// Fill of a condition segment by its status; status counts are plain.
fn segment_fill(seg: &Segment) -> &'static str {
    match seg.status.as_deref() {
        Some("True") => "#cfe8cf",
        Some("False") => "#f3c4c4",
        Some(_) => "#e4e4e4",
        None => "#eef2f7",
    }
}

fn segment_bar(s: &mut String, seg: &Segment, y: f64, end: Duration, x: &impl Fn(Duration) -> f64) {
    let x0 = x(seg.from);
    let x1 = x(seg.to.unwrap_or(end).max(seg.from));
    let w = (x1 - x0).max(1.0);
    let _ = write!(
        s,
        "<g class=\"segment\"><title>{} from {}{}</title><rect x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\" fill=\"{}\" stroke=\"#bbb\"/>",
        escape(&seg.title),
        fmt_t(seg.from),
        seg.to.map(|t| format!(" to {}", fmt_t(t))).unwrap_or_default(),
        segment_fill(seg)
    );
    // The label only where it fits (about 6.6 px a character).
    let fits = (w / 6.6) as usize;
    if fits >= 4 {
        let mut label: String = seg.label.chars().take(fits.saturating_sub(1)).collect();
        if seg.label.chars().count() > fits.saturating_sub(1) {
            label.pop();
            label.push('…');
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\">{}</text>",
            x0 + 3.0,
            y + BAR_H - 4.0,
            escape(&label)
        );
    }
    s.push_str("</g>\n");
}

fn legend_item(s: &mut String, lx: &mut f64, y: f64, swatch: &str, label: &str) {
    let _ = write!(
        s,
        "{swatch}<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        *lx + 18.0,
        y + 11.0,
        escape(label)
    );
    *lx += 26.0 + 7.0 * label.chars().count() as f64;
}

fn legend(
    s: &mut String,
    colours: &[(String, &'static str)],
    roles: &std::collections::HashMap<String, &'static str>,
    steps: bool,
    y: f64,
    hatch: &str,
) {
    let mut lx = 10.0;
    s.push_str("<g class=\"legend\">");
    for (rev, c) in colours {
        let sw =
            format!("<rect x=\"{lx:.1}\" y=\"{y:.1}\" width=\"14\" height=\"12\" fill=\"{c}\"/>");
        let label = match roles.get(rev) {
            Some(role) => format!("revision {rev} ({role})"),
            None => format!("revision {rev}"),
        };
        legend_item(s, &mut lx, y, &sw, &label);
    }
    if steps {
        let sw = format!(
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#777\" stroke-dasharray=\"3,3\"/>",
            lx + 7.0,
            y - 2.0,
            lx + 7.0,
            y + 14.0
        );
        legend_item(s, &mut lx, y, &sw, "step (numbered as listed)");
    }
    // The marks on a row of their own: revision names are long.
    let y = y + 18.0;
    let mut lx = 10.0;
    let sw = format!("<rect x=\"{lx:.1}\" y=\"{y:.1}\" width=\"14\" height=\"12\" fill=\"#888\" fill-opacity=\"0.35\" stroke=\"#888\"/>");
    legend_item(s, &mut lx, y, &sw, "exists, not ready");
    let sw = format!(
        "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"14\" height=\"6\" fill=\"#888\"/>",
        y + 3.0
    );
    legend_item(s, &mut lx, y, &sw, "ready");
    let sw = format!("<rect x=\"{lx:.1}\" y=\"{y:.1}\" width=\"14\" height=\"12\" fill=\"url(#{hatch})\" stroke=\"#222\"/>");
    legend_item(s, &mut lx, y, &sw, "terminating");
    let sw = format!(
        "<path d=\"M{:.1} {:.1} L{:.1} {:.1} M{:.1} {:.1} L{:.1} {:.1}\" stroke=\"#000\" stroke-width=\"2\"/>",
        lx + 3.0,
        y + 2.0,
        lx + 11.0,
        y + 10.0,
        lx + 11.0,
        y + 2.0,
        lx + 3.0,
        y + 10.0
    );
    legend_item(s, &mut lx, y, &sw, "gone");
    let sw = format!(
        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#d00\" stroke-width=\"2\"/>",
        lx + 7.0,
        y - 2.0,
        lx + 7.0,
        y + 14.0
    );
    legend_item(s, &mut lx, y, &sw, "first violation");
    s.push_str("</g>\n");
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}
