//! Label selectors (equality- and set-based) and field selectors.

use serde_json::Value;

/// One label requirement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Requirement {
    /// `key` (exists)
    Exists(String),
    /// `!key`
    DoesNotExist(String),
    /// `key=value`, `key==value`, `key in (a,b)`
    In(String, Vec<String>),
    /// `key!=value`, `key notin (a,b)`
    NotIn(String, Vec<String>),
    /// `key>n`
    Gt(String, i64),
    /// `key<n`
    Lt(String, i64),
}

/// A parsed label selector; empty matches everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LabelSelector(pub Vec<Requirement>);

fn split_top_level(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c)
            }
            ')' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 316
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn parse_set(rest: &str) -> Result<Vec<String>, String> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("found '{rest}', expected: '('"))?;
    let vals: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
    if let Some(bad) = vals.iter().find(|v| !valid_value(v)) {
        return Err(format!("invalid label value: {bad:?}"));
    }
    Ok(vals)
}

fn parse_requirement(p: &str) -> Result<Requirement, String> {
    if let Some(k) = p.strip_prefix('!') {
        let k = k.trim();
        return valid_key(k)
            .then(|| Requirement::DoesNotExist(k.to_string()))
            .ok_or_else(|| format!("invalid label key {k:?}"));
    }
    for (op, neg) in [(" notin ", true), (" in ", false)] {
        if let Some((k, rest)) = p.split_once(op) {
            let k = k.trim();
            if !valid_key(k) {
                return Err(format!("invalid label key {k:?}"));
            }
            let vals = parse_set(rest)?;
            return Ok(if neg {
                Requirement::NotIn(k.to_string(), vals)
            } else {
                Requirement::In(k.to_string(), vals)
            });
        }
    }
    for (op, which) in [("!=", 0), ("==", 1), ("=", 1), (">", 2), ("<", 3)] {
        if let Some((k, v)) = p.split_once(op) {
            let (k, v) = (k.trim(), v.trim());
            if !valid_key(k) {
                return Err(format!("invalid label key {k:?}"));
            }
            return match which {
                0 | 1 if !valid_value(v) => Err(format!("invalid label value: {v:?}")),
                0 => Ok(Requirement::NotIn(k.to_string(), vec![v.to_string()])),
                1 => Ok(Requirement::In(k.to_string(), vec![v.to_string()])),
                _ => {
                    let n: i64 = v.parse().map_err(|_| {
                        format!("for 'Gt', 'Lt' operators, the value must be an integer: {v:?}")
                    })?;
                    Ok(if which == 2 {
                        Requirement::Gt(k.to_string(), n)
                    } else {
                        Requirement::Lt(k.to_string(), n)
                    })
                }
            };
        }
    }
    let k = p.trim();
    valid_key(k)
        .then(|| Requirement::Exists(k.to_string()))
        .ok_or_else(|| format!("invalid label key {k:?}"))
}

impl LabelSelector {
    /// Parses the `labelSelector` query parameter syntax.
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        split_top_level(s)
            .iter()
            .map(|p| parse_requirement(p))
            .collect::<Result<Vec<_>, _>>()
            .map(LabelSelector)
            .map_err(|e| format!("unable to parse requirement: {e}"))
    }

    /// Whether an object's labels satisfy every requirement.
    pub(crate) fn matches(&self, obj: &Value) -> bool {
        let labels = &obj["metadata"]["labels"];
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
            Requirement::In(k, vs) => get(k).is_some_and(|v| vs.iter().any(|x| x == v)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|v| vs.iter().all(|x| x != v)),
            Requirement::Gt(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            Requirement::Lt(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        })
    }
}

/// One field requirement: `path` equals (or not) `value`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldRequirement {
    /// Dotted field path, e.g. `spec.nodeName`.
    pub field: String,
    /// Expected value.
    pub value: String,
    /// `!=` instead of `=`.
    pub negated: bool,
}

/// A parsed field selector; empty matches everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FieldSelector(pub Vec<FieldRequirement>);

/// The field labels a resource supports beyond `metadata.name`/`metadata.namespace`.
fn supported_fields(group: &str, plural: &str) -> &'static [&'static str] {
    match (group, plural) {
        ("", "pods") => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        ("", "events") | ("events.k8s.io", "events") => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "regarding.kind",
            "regarding.namespace",
            "regarding.name",
            "regarding.uid",
            "reason",
            "reportingComponent",
            "reportingController",
            "source",
            "type",
        ],
        ("", "secrets") => &["type"],
        ("", "namespaces") => &["status.phase"],
        ("", "nodes") => &["spec.unschedulable"],
        ("", "persistentvolumeclaims") | ("", "persistentvolumes") => &["status.phase"],
        _ => &[],
    }
}

fn field_value(obj: &Value, field: &str) -> String {
    let path = if field == "source" {
        "source.component"
    } else {
        field
    };
    let mut cur = obj;
    for part in path.split('.') {
        cur = &cur[part];
    }
    match cur {
        Value::String(s) => s.clone(),
        // Upstream's selectable fields format these Go bools, so an unset
        // field reads "false" (nodes' `fmt.Sprint(Spec.Unschedulable)`,
        // pods' `strconv.FormatBool(HostNetwork)`).
        Value::Null if matches!(field, "spec.unschedulable" | "spec.hostNetwork") => "false".into(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl FieldSelector {
    /// Parses the `fieldSelector` syntax for one resource; unsupported fields are an error
    /// (`field label not supported: x`), as upstream.
    pub(crate) fn parse(s: &str, group: &str, plural: &str) -> Result<Self, String> {
        let mut reqs = Vec::new();
        for p in split_top_level(s) {
            let (field, value, negated) = if let Some((f, v)) = p.split_once("!=") {
                (f, v, true)
            } else if let Some((f, v)) = p.split_once("==") {
                (f, v, false)
            } else if let Some((f, v)) = p.split_once('=') {
                (f, v, false)
            } else {
                return Err(format!("invalid selector: '{s}'; can't understand '{p}'"));
            };
            let field = field.trim();
            let ok = field == "metadata.name"
                || field == "metadata.namespace"
                || supported_fields(group, plural).contains(&field);
            if !ok {
                return Err(format!("field label not supported: {field}"));
            }
            let stored = if group == "events.k8s.io" {
                super::convert::core_field(field)
            } else {
                field.to_string()
            };
            reqs.push(FieldRequirement {
                field: stored,
                value: value.trim().to_string(),
                negated,
            });
        }
        Ok(FieldSelector(reqs))
    }

    /// Whether the object satisfies every requirement.
    pub(crate) fn matches(&self, obj: &Value) -> bool {
        self.0
            .iter()
            .all(|r| (field_value(obj, &r.field) == r.value) != r.negated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(labels: Value) -> Value {
        json!({"metadata": {"name": "a", "labels": labels}, "spec": {"nodeName": "n1"}})
    }

    #[test]
    fn equality_and_set_based() {
        let o = obj(json!({"app": "web", "tier": "db"}));
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(&o);
        assert!(m(""));
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (web, api)"));
        assert!(!m("app notin (web,api)"));
        assert!(m("tier in (db),app"));
        assert!(m("!missing"));
        assert!(!m("!app"));
        assert!(!m("missing"));
        assert!(m("missing notin (x)"));
    }

    #[test]
    fn bad_label_selectors_error() {
        assert!(LabelSelector::parse("app in web").is_err());
        assert!(LabelSelector::parse("a b=c").is_err());
        assert!(LabelSelector::parse("x>y").is_err());
    }

    #[test]
    fn unset_boolean_fields_select_as_false() {
        let node = json!({"metadata": {"name": "n"}, "spec": {}});
        let sel = |s: &str, plural: &str| FieldSelector::parse(s, "", plural).unwrap();
        assert!(sel("spec.unschedulable=false", "nodes").matches(&node));
        assert!(!sel("spec.unschedulable=true", "nodes").matches(&node));
        let cordoned = json!({"metadata": {"name": "n"}, "spec": {"unschedulable": true}});
        assert!(sel("spec.unschedulable=true", "nodes").matches(&cordoned));
        let pod = json!({"metadata": {"name": "p"}, "spec": {}});
        assert!(sel("spec.hostNetwork=false", "pods").matches(&pod));
        assert!(sel("spec.hostNetwork!=true", "pods").matches(&pod));
    }

    #[test]
    fn field_selectors() {
        let o = obj(json!({}));
        let f = FieldSelector::parse("metadata.name=a,spec.nodeName!=n2", "", "pods").unwrap();
        assert!(f.matches(&o));
        let f = FieldSelector::parse("spec.nodeName=n2", "", "pods").unwrap();
        assert!(!f.matches(&o));
        assert_eq!(
            FieldSelector::parse("spec.nodeName=n2", "apps", "statefulsets").unwrap_err(),
            "field label not supported: spec.nodeName"
        );
    }
}
