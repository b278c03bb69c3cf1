//! Reports of a run: the result [`model`], JUnit XML ([`junit`]), JSON
//! ([`json`]) and a self-contained HTML page with timeline pictures
//! ([`html`], [`swimlane`]).

pub(crate) mod comparison;
pub(crate) mod html;
pub(crate) mod json;
pub(crate) mod junit;
pub(crate) mod markdown;
pub(crate) mod model;
pub(crate) mod set_lanes;
pub(crate) mod swimlane;

pub use model::{Feature, Run, ScenarioResult, Status, Step, Totals};

/// Escapes text for XML and HTML content and attribute values; characters
/// not allowed in XML 1.0 (control characters other than tab, newline and
/// carriage return, U+FFFE, U+FFFF) are replaced with U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Writes `content` to `path`, creating parent directories.
pub fn write_file(path: &std::path::Path, content: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    std::fs::write(path, content)
}

#[cfg(test)]
mod tests;
