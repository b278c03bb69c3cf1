//! Field errors rendered like apimachinery's `field.Error`: the cause type,
//! the field path, the bad value as Go prints it, and the detail.

use super::FieldCause;

/// The kinds of field error the admission chain produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// `field.Required`.
    Required,
    /// `field.Invalid`.
    Invalid,
    /// `field.NotSupported`.
    NotSupported,
    /// `field.Forbidden`.
    Forbidden,
    /// `field.Duplicate`.
    Duplicate,
    /// `field.TooLong`.
    TooLong,
    /// `field.NotFound`.
    NotFound,
}

impl ErrorKind {
    fn cause_type(self) -> &'static str {
        match self {
            ErrorKind::Required => "FieldValueRequired",
            ErrorKind::Invalid => "FieldValueInvalid",
            ErrorKind::NotSupported => "FieldValueNotSupported",
            ErrorKind::Forbidden => "FieldValueForbidden",
            ErrorKind::Duplicate => "FieldValueDuplicate",
            ErrorKind::TooLong => "FieldValueTooLong",
            ErrorKind::NotFound => "FieldValueNotFound",
        }
    }

    fn text(self) -> &'static str {
        match self {
            ErrorKind::Required => "Required value",
            ErrorKind::Invalid => "Invalid value",
            ErrorKind::NotSupported => "Unsupported value",
            ErrorKind::Forbidden => "Forbidden",
            ErrorKind::Duplicate => "Duplicate value",
            ErrorKind::TooLong => "Too long",
            ErrorKind::NotFound => "Not found",
        }
    }
}

/// One field error; `value` is already rendered the way Go's `field.Error`
/// prints the bad value (numbers bare, strings quoted, structs as `%#v`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// The kind of error.
    pub kind: ErrorKind,
    /// The field path, e.g. `spec.updateStrategy.type`.
    pub field: String,
    /// The rendered bad value (unused for Required and Forbidden).
    pub value: String,
    /// The detail after the value.
    pub detail: String,
}

impl FieldError {
    /// `field.Required(path, detail)`.
    pub(crate) fn required(field: &str, detail: &str) -> Self {
        Self::new(ErrorKind::Required, field, String::new(), detail)
    }

    /// `field.Invalid(path, value, detail)` with a pre-rendered value.
    pub(crate) fn invalid(field: &str, value: String, detail: &str) -> Self {
        Self::new(ErrorKind::Invalid, field, value, detail)
    }

    /// `field.NotSupported(path, value, supported)` for a string value.
    pub(crate) fn not_supported(field: &str, value: &str, supported: &[&str]) -> Self {
        let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        let detail = if quoted.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorKind::NotSupported, field, go_quote(value), &detail)
    }

    /// `field.Forbidden(path, detail)`.
    pub(crate) fn forbidden(field: &str, detail: &str) -> Self {
        Self::new(ErrorKind::Forbidden, field, String::new(), detail)
    }

    /// `field.TooLong(path, _, max)`: the value is never printed.
    pub(crate) fn too_long(field: &str, max: usize) -> Self {
        let detail = format!("may not be more than {max} bytes");
        Self::new(ErrorKind::TooLong, field, String::new(), &detail)
    }

    /// `field.Duplicate(path, value)` for a string value.
    pub(crate) fn duplicate(field: &str, value: &str) -> Self {
        Self::new(ErrorKind::Duplicate, field, go_quote(value), "")
    }

    /// `field.NotFound(path, value)` for a string value.
    pub(crate) fn not_found(field: &str, value: &str) -> Self {
        Self::new(ErrorKind::NotFound, field, go_quote(value), "")
    }

    fn new(kind: ErrorKind, field: &str, value: String, detail: &str) -> Self {
        FieldError {
            kind,
            field: field.to_string(),
            value,
            detail: detail.to_string(),
        }
    }

    /// The message without the field (`ErrorBody`).
    pub(crate) fn body(&self) -> String {
        let mut s = match self.kind {
            ErrorKind::Required | ErrorKind::Forbidden | ErrorKind::TooLong => {
                self.kind.text().to_string()
            }
            _ => format!("{}: {}", self.kind.text(), self.value),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// The `Status` cause of this error.
    pub(crate) fn to_cause(&self) -> FieldCause {
        FieldCause {
            reason: self.kind.cause_type().to_string(),
            message: self.body(),
            field: self.field.clone(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `%q` of a string (strconv.Quote): printable characters kept,
/// quotes, backslashes and control characters escaped.
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%#v` of a `map[string]string` (keys sorted; `None` is a nil map).
pub(super) fn go_string_map(map: Option<&serde_json::Map<String, serde_json::Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".to_string();
    };
    let mut entries: Vec<(String, String)> = map
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    entries.sort();
    let inner: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", go_quote(k), go_quote(v)))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

/// Go's `%#v` of an `intstr.IntOrString` given as JSON (a number or a string).
pub(super) fn go_int_or_string(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => {
            format!(
                "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
                go_quote(s)
            )
        }
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or_default()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_follow_the_error_type() {
        assert_eq!(
            FieldError::required("spec.selector", "").body(),
            "Required value"
        );
        assert_eq!(
            FieldError::required("metadata.name", "name or generateName is required").to_string(),
            "metadata.name: Required value: name or generateName is required"
        );
        assert_eq!(
            FieldError::forbidden("spec", "nope").to_string(),
            "spec: Forbidden: nope"
        );
        assert_eq!(
            FieldError::not_supported("spec.updateStrategy.type", "Recreate", &["OnDelete", "RollingUpdate"])
                .to_string(),
            "spec.updateStrategy.type: Unsupported value: \"Recreate\": supported values: \"OnDelete\", \"RollingUpdate\""
        );
        assert_eq!(
            FieldError::duplicate("spec.containers[1].name", "app").to_string(),
            "spec.containers[1].name: Duplicate value: \"app\""
        );
        let c = FieldError::invalid(
            "spec.replicas",
            "-1".into(),
            "must be greater than or equal to 0",
        )
        .to_cause();
        assert_eq!(c.reason, "FieldValueInvalid");
        assert_eq!(c.field, "spec.replicas");
        assert_eq!(
            c.message,
            "Invalid value: -1: must be greater than or equal to 0"
        );
    }

    #[test]
    fn go_renderings() {
        assert_eq!(go_quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(go_quote("é"), "\"é\"");
        let m = json!({"b": "2", "a": "1"});
        assert_eq!(
            go_string_map(m.as_object()),
            "map[string]string{\"a\":\"1\", \"b\":\"2\"}"
        );
        assert_eq!(go_string_map(None), "map[string]string(nil)");
        assert_eq!(
            go_int_or_string(&json!(0)),
            "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}"
        );
        assert_eq!(
            go_int_or_string(&json!("0%")),
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"0%\"}"
        );
    }
}
