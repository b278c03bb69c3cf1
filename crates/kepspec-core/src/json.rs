//! Reading JSON values by JSON Pointer (RFC 6901) without allocating.
//!
//! `serde_json::Value::pointer` copies every reference token into two new
//! strings to undo `~1` and `~0`; the harness and the embedded cluster read
//! pointers on every recorded pod state and every write, so they use
//! [`Lookup::lookup`] instead, which only copies a token that has escapes.

use serde_json::Value;

/// JSON Pointer lookup for [`Value`].
pub trait Lookup {
    /// The value `pointer` names (`""` is the whole value), as
    /// `serde_json::Value::pointer` finds it.
    fn lookup(&self, pointer: &str) -> Option<&Value>;
}

impl Lookup for Value {
    fn lookup(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').try_fold(self, |target, token| {
            if token.contains('~') {
                step(target, &token.replace("~1", "/").replace("~0", "~"))
            } else {
                step(target, token)
            }
        })
    }
}

fn step<'a>(target: &'a Value, token: &str) -> Option<&'a Value> {
    match target {
        Value::Object(map) => map.get(token),
        Value::Array(list) => index(token).and_then(|i| list.get(i)),
        _ => None,
    }
}

/// An array index token: digits without a leading zero (RFC 6901 §4).
fn index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() > 1) {
        return None;
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_what_serde_json_finds() {
        let v = json!({"a": {"b/c": [1, {"d~e": true}], "": 5}, "f": null});
        for p in [
            "",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/",
            "/f",
            "/a/b~1c/01",
            "/a/b~1c/+1",
            "/a/b~1c/2",
            "/missing/x",
            "a",
            "/f/x",
        ] {
            assert_eq!(v.lookup(p), v.pointer(p), "{p}");
        }
    }
}
