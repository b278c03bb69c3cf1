//! Reading a controller's Prometheus metrics: the value of one gauge for
//! one StatefulSet, by the name a KEP gives it.
//!
//! KEP-961 names its gauges `statefulset_max_unavailable` and
//! `statefulset_unavailable_replicas`; upstream registers them under the
//! subsystem `statefulset_controller` (so they are served as
//! `statefulset_controller_statefulset_max_unavailable`), labelled
//! `statefulset_namespace` and `statefulset_name`. A gauge is found under
//! the KEP's name or under any subsystem prefix of it, and a set under
//! upstream's labels or the plain `namespace` / `statefulset`.

/// The value of `name` for the set `set` in `namespace`, or None. `name`
/// may select further labels: `statefulset_forced_pod_replacements_total{result=success}`.
pub fn gauge(text: &str, name: &str, namespace: &str, set: &str) -> Option<f64> {
    sample(text, name, Some((namespace, set)))
}

/// The value of `name` (with the labels it selects, as in [`gauge`]); with
/// `set`, only a sample labelled with that namespace and set.
pub fn sample(text: &str, name: &str, set: Option<(&str, &str)>) -> Option<f64> {
    let (name, wanted) = match name.split_once('{') {
        Some((n, rest)) => (n, rest.trim_end_matches('}')),
        None => (name, ""),
    };
    let wanted: Vec<(&str, &str)> = wanted
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim().trim_matches('"')))
        .collect();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(parse_sample)
        .filter(|s| s.name == name || s.name.ends_with(&format!("_{name}")))
        .filter(|s| {
            wanted
                .iter()
                .all(|(k, v)| s.labels.iter().any(|(lk, lv)| lk == k && lv == v))
        })
        .filter(|s| {
            let label = |keys: &[&str]| {
                keys.iter().find_map(|k| {
                    s.labels
                        .iter()
                        .find(|(lk, _)| lk == k)
                        .map(|(_, v)| v.as_str())
                })
            };
            set.is_none_or(|(namespace, set)| {
                label(&["statefulset_name", "statefulset"]) == Some(set)
                    && label(&["statefulset_namespace", "namespace"]) == Some(namespace)
            })
        })
        .map(|s| s.value)
        .next()
}

struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

/// One sample line of the text format: `name{k="v",...} value`.
fn parse_sample(line: &str) -> Option<Sample> {
    let line = line.trim();
    let (head, value) = line.rsplit_once(' ')?;
    let value: f64 = value.parse().ok()?;
    let (name, labels) = match head.split_once('{') {
        Some((n, rest)) => (n, rest.strip_suffix('}')?),
        None => (head, ""),
    };
    let mut out = Vec::new();
    let mut rest = labels;
    while !rest.is_empty() {
        let (key, after) = rest.split_once("=\"")?;
        let mut val = String::new();
        let mut chars = after.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        val.push(match e {
                            'n' => '\n',
                            other => other,
                        });
                    }
                }
                '"' => {
                    end = Some(i);
                    break;
                }
                c => val.push(c),
            }
        }
        let end = end?;
        out.push((key.trim_start_matches(',').trim().to_string(), val));
        rest = after[end + 1..].trim_start_matches(',');
    }
    Some(Sample {
        name: name.to_string(),
        labels: out,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# HELP x\n\
        statefulset_controller_statefulset_max_unavailable{pod_management_policy=\"Parallel\",statefulset_name=\"web\",statefulset_namespace=\"ns\"} 2\n\
        statefulset_controller_statefulset_max_unavailable{pod_management_policy=\"Parallel\",statefulset_name=\"db\",statefulset_namespace=\"ns\"} 5\n\
        statefulset_unavailable_replicas{namespace=\"ns\",statefulset=\"web\"} 1\n";

    #[test]
    fn a_gauge_is_found_by_the_keps_name_under_either_labelling() {
        assert_eq!(
            gauge(TEXT, "statefulset_max_unavailable", "ns", "web"),
            Some(2.0)
        );
        assert_eq!(
            gauge(TEXT, "statefulset_max_unavailable", "ns", "db"),
            Some(5.0)
        );
        assert_eq!(
            gauge(TEXT, "statefulset_unavailable_replicas", "ns", "web"),
            Some(1.0)
        );
        assert_eq!(
            gauge(TEXT, "statefulset_max_unavailable", "other", "web"),
            None
        );
        assert_eq!(gauge(TEXT, "max_unavailable_x", "ns", "web"), None);
    }
}
