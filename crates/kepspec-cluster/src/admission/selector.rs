//! `metav1.LabelSelector`: validation and matching against labels.

use super::fielderr::{go_quote, FieldError};
use serde_json::{Map, Value};

/// `ValidateLabelSelector` (operators and their values).
pub(crate) fn validate(selector: &Map<String, Value>, field: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(exprs) = selector.get("matchExpressions").and_then(Value::as_array) else {
        return errs;
    };
    for (i, expr) in exprs.iter().enumerate() {
        let path = format!("{field}.matchExpressions[{i}]");
        let op = expr
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let n_values = expr
            .get("values")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        match op {
            "In" | "NotIn" => {
                if n_values == 0 {
                    errs.push(FieldError::required(
                        &format!("{path}.values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if n_values > 0 {
                    errs.push(FieldError::forbidden(
                        &format!("{path}.values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            other => errs.push(FieldError::invalid(
                &format!("{path}.operator"),
                go_quote(other),
                "not a valid selector operator",
            )),
        }
    }
    errs
}

/// Whether the selector has no requirements at all.
pub(crate) fn is_empty(selector: &Map<String, Value>) -> bool {
    let labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    let exprs = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    labels + exprs == 0
}

/// Whether `labels` satisfy every requirement of `selector`.
pub(crate) fn matches(selector: &Map<String, Value>, labels: Option<&Map<String, Value>>) -> bool {
    let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    if let Some(ml) = selector.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in ml {
            if get(k) != v.as_str() {
                return false;
            }
        }
    }
    if let Some(exprs) = selector.get("matchExpressions").and_then(Value::as_array) {
        for expr in exprs {
            let key = expr.get("key").and_then(Value::as_str).unwrap_or_default();
            let values: Vec<&str> = expr
                .get("values")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let have = get(key);
            let ok = match expr.get("operator").and_then(Value::as_str) {
                Some("In") => have.is_some_and(|h| values.contains(&h)),
                Some("NotIn") => have.is_none_or(|h| !values.contains(&h)),
                Some("Exists") => have.is_some(),
                Some("DoesNotExist") => have.is_none(),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// Go's `%#v` of an empty `*metav1.LabelSelector` as the apiserver prints it
/// in "empty selector" errors.
pub(crate) fn go_render_empty(selector: &Map<String, Value>) -> String {
    let labels = if selector.get("matchLabels").is_some_and(Value::is_object) {
        "map[string]string{}"
    } else {
        "map[string]string(nil)"
    };
    let exprs = if selector
        .get("matchExpressions")
        .is_some_and(Value::is_array)
    {
        "[]v1.LabelSelectorRequirement{}"
    } else {
        "[]v1.LabelSelectorRequirement(nil)"
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{exprs}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn matching() {
        let labels = obj(json!({"app": "web", "tier": "db"}));
        assert!(matches(
            &obj(json!({"matchLabels": {"app": "web"}})),
            Some(&labels)
        ));
        assert!(!matches(
            &obj(json!({"matchLabels": {"app": "api"}})),
            Some(&labels)
        ));
        let sel = obj(json!({"matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["db", "cache"]},
            {"key": "zone", "operator": "DoesNotExist"},
            {"key": "app", "operator": "NotIn", "values": ["api"]},
            {"key": "app", "operator": "Exists"}
        ]}));
        assert!(matches(&sel, Some(&labels)));
        assert!(!matches(&sel, None));
    }

    #[test]
    fn validation_messages() {
        let sel = obj(json!({"matchExpressions": [
            {"key": "a", "operator": "In"},
            {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "c", "operator": "Near"}
        ]}));
        let errs: Vec<String> = validate(&sel, "spec.selector")
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(errs, vec![
            "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'".to_string(),
            "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'".to_string(),
            "spec.selector.matchExpressions[2].operator: Invalid value: \"Near\": not a valid selector operator".to_string(),
        ]);
        assert!(is_empty(&obj(json!({"matchLabels": {}}))));
        assert_eq!(
            go_render_empty(&obj(json!({}))),
            "v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
        );
    }
}
