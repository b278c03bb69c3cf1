//! Label selectors as the API serves them (JSON): matching an object's
//! labels through kube-core's `Selector`, and the text form
//! `metav1.FormatLabelSelector` writes.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube_core::{Selector, SelectorExt as _};
use serde_json::{Map, Value};

/// Whether a selector (JSON, as a set is served) matches these labels. A
/// selector that does not parse matches nothing, as
/// `metav1.LabelSelectorAsSelector`'s error makes a controller select
/// nothing.
pub fn matches(selector: &Map<String, Value>, labels: &BTreeMap<String, String>) -> bool {
    let Ok(parsed) = serde_json::from_value::<LabelSelector>(Value::Object(selector.clone()))
    else {
        return false;
    };
    match Selector::try_from(parsed) {
        Ok(selector) => selector.matches(labels),
        Err(_) => false,
    }
}

/// `metav1.FormatLabelSelector` of a `LabelSelector` object.
pub fn format_label_selector(sel: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(m) = sel["matchLabels"].as_object() {
        let mut kv: Vec<(&String, &Value)> = m.iter().collect();
        kv.sort_by_key(|(k, _)| k.as_str());
        for (k, v) in kv {
            parts.push(format!("{k}={}", v.as_str().unwrap_or_default()));
        }
    }
    for e in sel["matchExpressions"].as_array().into_iter().flatten() {
        let key = e["key"].as_str().unwrap_or_default();
        let mut vals: Vec<&str> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        vals.sort();
        match e["operator"].as_str().unwrap_or_default() {
            "In" => parts.push(format!("{key} in ({})", vals.join(","))),
            "NotIn" => parts.push(format!("{key} notin ({})", vals.join(","))),
            "Exists" => parts.push(key.to_string()),
            "DoesNotExist" => parts.push(format!("!{key}")),
            _ => {}
        }
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn match_labels_and_expressions_select() {
        let sel = json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["a", "b"]},
                {"key": "debug", "operator": "DoesNotExist"}
            ]
        });
        let sel = sel.as_object().expect("object");
        assert!(matches(sel, &labels(&[("app", "web"), ("tier", "a")])));
        assert!(!matches(sel, &labels(&[("app", "web"), ("tier", "c")])));
        assert!(!matches(
            sel,
            &labels(&[("app", "web"), ("tier", "a"), ("debug", "1")])
        ));
        assert!(!matches(sel, &labels(&[("tier", "a")])));
    }

    #[test]
    fn a_selector_that_does_not_parse_selects_nothing() {
        let sel = json!({"matchExpressions": [{"key": "a", "operator": "Near"}]});
        assert!(!matches(
            sel.as_object().expect("object"),
            &labels(&[("a", "1")])
        ));
    }

    #[test]
    fn formats_as_metav1_does() {
        let s = json!({
            "matchLabels": {"b": "2", "a": "1"},
            "matchExpressions": [
                {"key": "t", "operator": "In", "values": ["y", "x"]},
                {"key": "u", "operator": "DoesNotExist"}
            ]
        });
        assert_eq!(format_label_selector(&s), "a=1,b=2,t in (x,y),!u");
    }
}
