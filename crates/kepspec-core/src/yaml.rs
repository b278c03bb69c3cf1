//! YAML in and out (serde-saphyr), read as the crate has always read it:
//! the YAML 1.2 core schema for untyped values, errors that name the field
//! path and the line and column, and no nesting deeper than [`MAX_DEPTH`].
//!
//! What the reading options keep as it was (serde-saphyr's defaults differ):
//! only `true`/`false` (any case) are booleans, so `yes`, `on` and `y` stay
//! strings; `0755` and `1_000` stay strings in untyped values; `.inf` and
//! `.nan` become JSON null rather than an error; a repeated key replaces the
//! earlier one in a map (a struct refuses it, as serde does); `<<` is an
//! ordinary key, not a merge; `!!binary` text stays text. Written YAML quotes
//! every string a YAML 1.1 reader (kind, kubectl) would take for something
//! else (`"yes"`, `"on"`, `"1_000"`, `"<<"`).

use std::borrow::Cow;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{
    DuplicateKeyPolicy, Localizer, Location, MergeKeyPolicy, NonFiniteFloatPolicy, RenderOptions,
    SnippetMode, UserMessageFormatter,
};

/// The nesting a YAML document may have (serde_json's recursion limit, and
/// serde_yaml_ng's before): deeper is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 128;

/// The stack a read or write runs on. serde-saphyr recurses once per level
/// of nesting and, in a debug build, [`MAX_DEPTH`] levels take about 3 MiB:
/// more than a test thread or a tokio worker has (2 MiB).
const STACK_BYTES: usize = 16 << 20;

/// A YAML error: `[PATH: ]MESSAGE[ at line L column C]`, e.g.
/// `spec.resource: missing field `kind` at line 5 column 47`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The field path (`spec.install[0]`) of a value that does not fit its
    /// type; syntax errors have none.
    path: Option<String>,
    message: String,
    /// 1-based line and column.
    location: Option<(usize, usize)>,
}

impl Error {
    /// The 1-based line and column, when known.
    pub fn location(&self) -> Option<(usize, usize)> {
        self.location
    }

    /// `[PATH: ]MESSAGE`, for callers that show the location their own way.
    pub fn without_location(&self) -> String {
        match &self.path {
            Some(path) => format!("{path}: {}", self.message),
            None => self.message.clone(),
        }
    }

    fn other(message: impl Into<String>) -> Self {
        Self {
            path: None,
            message: message.into(),
            location: None,
        }
    }

    fn read(err: &serde_saphyr::Error, path: Option<&serde_path_to_error::Path>) -> Self {
        let inner = innermost(err);
        let message = match inner {
            serde_saphyr::Error::Budget {
                breach: BudgetBreach::Depth { .. },
                ..
            } => format!("recursion limit exceeded: nested deeper than {MAX_DEPTH} levels"),
            _ => {
                let formatter = UserMessageFormatter.with_localizer(&NoLocation);
                let mut render = RenderOptions::new(&formatter);
                render.snippets = SnippetMode::Off;
                err.render_with_options(render)
            }
        };
        let location = err.location().and_then(|l| {
            let line = usize::try_from(l.line()).ok()?;
            let column = usize::try_from(l.column()).ok()?;
            (line > 0).then_some((line, column))
        });
        Self {
            path: path.and_then(|p| field_path(inner, p)),
            message,
            location,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.without_location())?;
        if let Some((line, column)) = self.location {
            write!(f, " at line {line} column {column}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Drops the location suffix the renderer would add: [`Error`] keeps the
/// location apart and words it as before.
struct NoLocation;

impl Localizer for NoLocation {
    fn attach_location<'a>(&self, base: Cow<'a, str>, _loc: Location) -> Cow<'a, str> {
        base
    }
}

/// The error an alias replay wraps.
fn innermost(err: &serde_saphyr::Error) -> &serde_saphyr::Error {
    match err.without_snippet() {
        serde_saphyr::Error::AliasError { error, .. } => innermost(error),
        other => other,
    }
}

/// The path to show with `err`: only for a value that does not fit its
/// type (a syntax or limit error is about the text, not a field), and, as
/// serde_yaml_ng named it, the mapping's path for a key it refuses rather
/// than the key's own (`spec.supports: unknown field `tagz``).
fn field_path(err: &serde_saphyr::Error, path: &serde_path_to_error::Path) -> Option<String> {
    use serde_path_to_error::Segment;
    use serde_saphyr::Error as E;
    let mut segments: Vec<&Segment> = path.iter().collect();
    match err {
        E::SerdeUnknownField { field, .. } => {
            if matches!(segments.last(), Some(Segment::Map { key }) if key == field) {
                segments.pop();
            }
        }
        E::Message { .. }
        | E::SerdeInvalidType { .. }
        | E::SerdeInvalidValue { .. }
        | E::SerdeInvalidLength { .. }
        | E::SerdeUnknownVariant { .. }
        | E::SerdeMissingField { .. }
        | E::SerdeVariantId { .. }
        | E::Unexpected { .. }
        | E::InvalidScalar { .. }
        | E::NullIntoString { .. }
        | E::InvalidBooleanStrict { .. }
        | E::InvalidCharNull { .. }
        | E::InvalidCharNotSingleScalar { .. }
        | E::NonFiniteFloat { .. }
        | E::DuplicateMappingKey { .. }
        | E::TaggedEnumMismatch { .. }
        | E::TaggedScalarCannotDeserializeIntoString { .. }
        | E::InvalidBinaryBase64 { .. }
        | E::BinaryNotUtf8 { .. }
        | E::BytesNotSupportedMissingBinaryTag { .. }
        | E::UnexpectedValueForUnit { .. }
        | E::ExpectedEmptyMappingForUnitStruct { .. }
        | E::UnexpectedValueForUnitEnumVariant { .. }
        | E::ExternallyTaggedEnumExpectedScalarOrMapping { .. }
        | E::ExpectedStringKeyForExternallyTaggedEnum { .. } => {}
        _ => return None,
    }
    // A key that is not a string (or could not be read) is `?`: the error
    // is the mapping's.
    if matches!(segments.last(), Some(Segment::Unknown)) {
        segments.pop();
    }
    let mut out = String::new();
    for segment in segments {
        if !out.is_empty() && !matches!(segment, Segment::Seq { .. }) {
            out.push('.');
        }
        out.push_str(&segment.to_string());
    }
    (!out.is_empty()).then_some(out)
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: MAX_DEPTH,
            // The size of the input bounds these (the API server takes
            // 3 MiB bodies, as kube-apiserver does; files are the user's).
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_total_scalar_bytes: usize::MAX,
            max_documents: usize::MAX,
        },
        duplicate_keys: DuplicateKeyPolicy::PassThrough,
        merge_keys: MergeKeyPolicy::AsOrdinary,
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        non_finite_float_policy: NonFiniteFloatPolicy::PassThrough,
        ignore_binary_tag_for_string: true,
        with_snippet: false,
    }
}

/// Runs `f` on a thread with [`STACK_BYTES`] of stack.
fn on_big_stack<R: Send>(f: impl FnOnce() -> Result<R, Error> + Send) -> Result<R, Error> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, f)
            .map_err(|e| Error::other(format!("cannot start a thread for YAML: {e}")))?;
        match handle.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Reads one YAML document (an empty text reads as null); more than one is
/// an error.
pub fn from_str<T: DeserializeOwned + Send>(text: &str) -> Result<T, Error> {
    on_big_stack(|| {
        let mut path = None;
        serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
            serde_path_to_error::deserialize(de).map_err(|e| {
                path = Some(e.path().clone());
                e.into_inner()
            })
        })
        .map_err(|e| Error::read(&e, path.as_ref()))
    })
}

/// [`from_str`] for bytes, which must be UTF-8.
pub fn from_slice<T: DeserializeOwned + Send>(bytes: &[u8]) -> Result<T, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        // Characters before the bad byte on its line (the prefix is UTF-8).
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        Error {
            path: None,
            message: "the input is not valid UTF-8".into(),
            location: Some((line, column)),
        }
    })?;
    from_str(text)
}

/// Reads every document of a stream (`---` separated), skipping empty and
/// null ones.
pub fn documents<T: DeserializeOwned + Send>(text: &str) -> Result<Vec<T>, Error> {
    on_big_stack(|| {
        serde_saphyr::from_multiple_with_options(text, options()).map_err(|e| Error::read(&e, None))
    })
}

/// Writes `value` as one YAML document.
pub fn to_string<T: Serialize + Sync>(value: &T) -> Result<String, Error> {
    on_big_stack(|| serde_saphyr::to_string(value).map_err(|e| Error::other(e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::{json, Value};

    fn value(text: &str) -> Value {
        from_str(text).unwrap()
    }

    #[test]
    fn untyped_values_read_as_the_yaml_1_2_core_schema() {
        assert_eq!(
            value("a: 2\nb: '1'\nc: yes\nd: on\ne: True\nf: ~\ng: 0755\nh: 1_000\ni: 0x1F\nj: 1.5\nk: .inf\n"),
            json!({"a": 2, "b": "1", "c": "yes", "d": "on", "e": true, "f": null, "g": "0755", "h": "1_000", "i": 31, "j": 1.5, "k": null})
        );
        // A repeated key replaces the earlier value; `<<` merges nothing.
        assert_eq!(value("a: 1\nb: 2\na: 3\n"), json!({"a": 3, "b": 2}));
        assert_eq!(
            value("a: &x {p: 1}\nb: {<<: *x}\n"),
            json!({"a": {"p": 1}, "b": {"<<": {"p": 1}}})
        );
        assert_eq!(value("a: !!binary aGk=\n"), json!({"a": "aGk="}));
        assert_eq!(value(""), Value::Null);
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[allow(dead_code)]
        inner: Inner,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[allow(dead_code)]
        n: u32,
        #[allow(dead_code)]
        #[serde(default)]
        list: Vec<Vec<String>>,
        #[allow(dead_code)]
        #[serde(default)]
        on: bool,
    }

    fn typed_err(text: &str) -> String {
        from_str::<Outer>(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_field_path_line_and_column() {
        assert_eq!(
            typed_err("inner:\n  n: 1\n  nn: 2\n"),
            "inner: unknown field `nn`, expected one of n, list, on at line 3 column 3"
        );
        assert_eq!(
            typed_err("inner:\n  list: [a]\n"),
            "inner.list[0]: expected sequence start at line 2 column 10"
        );
        assert_eq!(
            typed_err("inner:\n  n: 1\n  on: yes\n"),
            "inner.on: invalid boolean (true or false expected) at line 3 column 7"
        );
        let e = from_str::<Outer>("inner:\n  list: []\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("inner: missing field `n` at line 2"),
            "{e}"
        );
        // A syntax error has no path.
        let e = from_str::<Value>("a:\n  b: [1, 2\n").unwrap_err();
        assert_eq!(e.location(), Some((2, 6)));
        assert_eq!(e.to_string(), "unclosed bracket '[' at line 2 column 6");
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_an_error_on_any_thread() {
        let block =
            |n: usize| -> String { (0..n).map(|i| format!("{}k:\n", " ".repeat(i))).collect() };
        assert!(from_str::<Value>(&block(MAX_DEPTH)).is_ok());
        let e = from_str::<Value>(&block(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "recursion limit exceeded: nested deeper than 128 levels at line 129 column 129"
        );
        let flow = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let small = std::thread::Builder::new().stack_size(256 << 10);
        let read = small
            .spawn(move || from_str::<Value>(&flow).is_ok())
            .unwrap()
            .join()
            .unwrap();
        assert!(read);
    }

    #[test]
    fn streams_skip_empty_documents_and_errors_name_the_stream_line() {
        let docs: Vec<Value> = documents("a: 1\n---\n---\nb: 2\n...\n").unwrap();
        assert_eq!(docs, vec![json!({"a": 1}), json!({"b": 2})]);
        let e = documents::<Value>("a: 1\n---\nb: 2\n  c: 3\n").unwrap_err();
        assert_eq!(e.location(), Some((4, 4)));
        assert!(from_str::<Value>("a: 1\n---\nb: 2\n").is_err());
    }

    #[test]
    fn bad_utf8_is_placed() {
        let e = from_slice::<Value>(b"a: 1\nb: \xe9t\xe9\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the input is not valid UTF-8 at line 2 column 4"
        );
    }

    #[test]
    fn written_strings_read_back_the_same_under_yaml_1_1() {
        let v = json!({"args": ["yes", "on", "n", "1_000", "0755", "<<", "", "a\nb\n", "true"], "n": 2, "b": false});
        let text = to_string(&v).unwrap();
        for quoted in [
            "\"yes\"",
            "\"on\"",
            "\"n\"",
            "\"1_000\"",
            "\"0755\"",
            "\"<<\"",
        ] {
            assert!(text.contains(quoted), "{quoted} in {text}");
        }
        assert_eq!(value(&text), v);
    }
}
