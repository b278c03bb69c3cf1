//! Object metadata helpers: uids, timestamps, generated names, finalizers.

use rand::Rng;
use serde_json::{json, Map, Value};

/// A random RFC 4122 version-4 uuid in its canonical text form.
pub(crate) fn new_uid() -> String {
    let mut b: [u8; 16] = rand::rng().random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Now as RFC 3339 with second precision (`2026-01-02T03:04:05Z`).
pub(crate) fn now_rfc3339() -> String {
    rfc3339(jiff::Timestamp::now())
}

/// A timestamp as RFC 3339 with second precision.
pub(crate) fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Now plus `secs` seconds, RFC 3339.
pub(crate) fn now_plus_rfc3339(secs: i64) -> String {
    let now = jiff::Timestamp::now();
    let t = now
        .checked_add(jiff::SignedDuration::from_secs(secs))
        .unwrap_or(now);
    rfc3339(t)
}

/// `generateName` + 5 characters from upstream's alphabet (no vowels, no confusables).
pub(crate) fn generate_name(prefix: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    let suffix: String = (0..5)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect();
    let max_prefix = 63 - 5;
    let p: String = prefix.chars().take(max_prefix).collect();
    format!("{p}{suffix}")
}

/// Mutable access to `metadata`, creating it if absent or not an object.
pub(crate) fn meta_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.is_object() {
        *obj = json!({});
    }
    let Some(map) = obj.as_object_mut() else {
        unreachable!("object ensured above")
    };
    let meta = map.entry("metadata").or_insert_with(|| json!({}));
    if !meta.is_object() {
        *meta = json!({});
    }
    match meta.as_object_mut() {
        Some(m) => m,
        None => unreachable!("metadata ensured above"),
    }
}

/// A string field of `metadata`.
pub(crate) fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")?.get(field)?.as_str()
}

/// `metadata.finalizers` as strings.
pub(crate) fn finalizers(obj: &Value) -> Vec<String> {
    obj["metadata"]["finalizers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Sets `metadata.finalizers` (removing the field when empty).
pub(crate) fn set_finalizers(obj: &mut Value, f: &[String]) {
    let m = meta_mut(obj);
    if f.is_empty() {
        m.remove("finalizers");
    } else {
        m.insert("finalizers".into(), json!(f));
    }
}

/// Finalizers that block removal: metadata.finalizers plus, for namespaces, spec.finalizers.
pub(crate) fn blocking_finalizers(obj: &Value, is_namespace: bool) -> usize {
    let mut n = finalizers(obj).len();
    if is_namespace {
        n += obj["spec"]["finalizers"].as_array().map_or(0, Vec::len);
    }
    n
}

/// Whether `name` is a valid DNS-1123 subdomain (the default object-name rule).
pub(crate) fn is_dns1123_subdomain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|l| {
            !l.is_empty()
                && l.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

/// Whether `name` is a valid DNS-1123 label (namespace names).
pub(crate) fn is_dns1123_label(name: &str) -> bool {
    name.len() <= 63 && !name.contains('.') && is_dns1123_subdomain(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_is_v4_text() {
        let u = new_uid();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(u, new_uid());
    }

    #[test]
    fn timestamps_have_second_precision() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z'));
    }

    #[test]
    fn generated_names_and_validation() {
        let n = generate_name("web-");
        assert_eq!(n.len(), 9);
        assert!(is_dns1123_subdomain(&n));
        assert!(!is_dns1123_subdomain("Web"));
        assert!(!is_dns1123_subdomain("a..b"));
        assert!(!is_dns1123_subdomain("-a"));
        assert!(is_dns1123_label("team-a"));
        assert!(!is_dns1123_label("a.b"));
    }
}
