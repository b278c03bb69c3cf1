//! YAML request bodies, bounded. A YAML scanner can take time quadratic in
//! the nesting of flow collections (`[[[[…]]]]`): with libyaml an 80 KB
//! body took 19 s and a 3 MB one would take hours, stalling the request and
//! a runtime worker with it. The decoders stop at 128 levels of nesting
//! anyway (their recursion limit), so a linear pre-scan refuses deeper flow
//! nesting before the scanner sees it, with the same 400.

use serde_json::Value;

/// The nesting the decoders accept (serde_json's recursion limit, and
/// [`kepspec_core::yaml`]'s).
pub(crate) const MAX_DEPTH: usize = kepspec_core::yaml::MAX_DEPTH;

/// Parses a YAML document into a JSON value, refusing flow collections
/// nested deeper than [`MAX_DEPTH`] before parsing.
pub(crate) fn parse(bytes: &[u8]) -> Result<Value, String> {
    if let Some((line, column)) = too_deep(bytes, MAX_DEPTH) {
        return Err(format!(
            "flow collections nested deeper than {MAX_DEPTH} levels at line {line} column {column}"
        ));
    }
    kepspec_core::yaml::from_slice(bytes).map_err(|e| e.to_string())
}

/// Where flow collections first nest deeper than `max` (1-based line and
/// column), if they do. A `[` or `{` opens a collection where a value can
/// start (after a line start, `:`, `-`, `,`, `?`, or another opener); quoted
/// scalars and comments are skipped. A plain scalar such as `a[b` opens
/// nothing.
pub(crate) fn too_deep(bytes: &[u8], max: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    // Whether the next non-blank character starts a value.
    let mut value_start = true;
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let mut prev = b'\n';
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        column += 1;
        if c == b'\n' {
            line += 1;
            column = 0;
            comment = false;
            value_start = true;
            prev = c;
            continue;
        }
        if comment {
            continue;
        }
        if let Some(q) = quote {
            if q == b'"' && c == b'\\' {
                // Skip the escaped character.
                i += 1;
                column += 1;
            } else if c == q {
                if q == b'\'' && bytes.get(i) == Some(&b'\'') {
                    i += 1;
                    column += 1;
                } else {
                    quote = None;
                    value_start = false;
                }
            }
            prev = c;
            continue;
        }
        match c {
            b' ' | b'\t' | b'\r' => {}
            b'#' if prev.is_ascii_whitespace() => comment = true,
            b'[' | b'{' if value_start => {
                depth += 1;
                if depth > max {
                    return Some((line, column));
                }
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                value_start = false;
            }
            b'"' | b'\'' if value_start => quote = Some(c),
            b':' | b',' | b'-' | b'?' => value_start = true,
            _ => value_start = false,
        }
        prev = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("a: {}{}\n", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn deep_flow_nesting_is_refused_before_parsing() {
        assert_eq!(too_deep(nested(128).as_bytes(), 128), None);
        assert_eq!(too_deep(nested(129).as_bytes(), 128), Some((1, 132)));
        // 3 MB of nesting is refused at once (the scanner alone would take hours).
        let big = nested(1_500_000);
        let err = parse(big.as_bytes()).unwrap_err();
        assert!(err.contains("deeper than 128"), "{err}");
    }

    #[test]
    fn brackets_in_scalars_and_comments_open_nothing() {
        let doc = format!(
            "a: b[c\nd: \"{open}\"\ne: '{open}'\nf: x # {open}\ng: {{h: [1, [2]], i: \"]]\"}}\n",
            open = "[".repeat(300)
        );
        assert_eq!(too_deep(doc.as_bytes(), 3), None);
        assert_eq!(too_deep(doc.as_bytes(), 2), Some((5, 12)));
        let v = parse(doc.as_bytes()).unwrap();
        assert_eq!(v["g"]["h"][1][0], 2);
    }

    #[test]
    fn a_yaml_error_names_its_line_and_column() {
        let body = b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n   c: d\n";
        assert_eq!(
            parse(body).unwrap_err(),
            "mapping values are not allowed in this context at line 5 column 5"
        );
        // As the API server answers it: a 400 whose message places the error.
        let e = super::super::decode_object("application/yaml", body).unwrap_err();
        assert_eq!(e.code, 400);
        assert_eq!(
            e.message,
            "couldn't get version/kind; yaml parse error: mapping values are not allowed in this context at line 5 column 5"
        );
    }

    #[test]
    fn block_nesting_is_left_to_the_decoder() {
        let doc: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert_eq!(too_deep(doc.as_bytes(), 128), None);
        assert!(parse(doc.as_bytes())
            .unwrap_err()
            .contains("recursion limit"));
    }
}
