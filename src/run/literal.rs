//! Rust string literals read from source text: the clause texts of
//! `src/harness/clauses.rs` (citations) and the phrases of the step
//! definitions (the step catalogue).

/// The value of the string literal `code` starts with (plain, `r"..."` or
/// `r#"..."#`), and the code after it; `None` for anything else or an
/// escape it does not know.
pub(crate) fn string_literal(code: &str) -> Option<(String, &str)> {
    if let Some(rest) = code.strip_prefix("r#\"") {
        let end = rest.find("\"#")?;
        return Some((rest[..end].to_string(), &rest[end + 2..]));
    }
    if let Some(rest) = code.strip_prefix("r\"") {
        let end = rest.find('"')?;
        return Some((rest[..end].to_string(), &rest[end + 1..]));
    }
    let body = code.strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &body[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'r' => value.push('\r'),
                '0' => value.push('\0'),
                '\\' => value.push('\\'),
                '"' => value.push('"'),
                '\'' => value.push('\''),
                // A line continuation skips the next line's indentation.
                '\n' => while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {},
                _ => return None,
            },
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_raw_literals_with_what_follows() {
        assert_eq!(
            string_literal(r#""a \"b\"" rest"#),
            Some(("a \"b\"".to_string(), " rest"))
        );
        assert_eq!(
            string_literal(r##"r#"x "y" z"#)]"##),
            Some(("x \"y\" z".to_string(), ")]"))
        );
        assert_eq!(
            string_literal(r#"r"^a$", x"#),
            Some(("^a$".to_string(), ", x"))
        );
        assert_eq!(string_literal("id"), None);
        assert_eq!(string_literal(r#""\q""#), None);
    }
}
