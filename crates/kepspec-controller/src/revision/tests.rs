use super::*;
use serde_json::json;

/// Revision data of kubernetes' own compatibility fixture
/// (`pkg/controller/statefulset/stateful_set_compatibility_test.go`): a set
/// "test" whose revision, as written by v1.33, is named `test-c77f6d978`.
const V1_33_DATA: &str = r#"{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}"#;

/// The same template as written by v1.34 and later (no null creationTimestamp),
/// from `testdata/compatibility_revision_1.34.0.json`: `test-776999688b`.
const V1_34_DATA: &str = r#"{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}"#;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn fnv1_known_vectors() {
    // Reference vectors of the FNV specification (FNV-1, 32 bit).
    assert_eq!(fnv1_32(b""), 0x811c_9dc5);
    assert_eq!(fnv1_32(b"a"), 0x050c_5d7e);
    assert_eq!(fnv1_32(b"foobar"), 0x31f0_b262);
}

#[test]
fn fnv1_is_not_fnv1a() {
    // FNV-1a of "a" is 0xe40c292c.
    assert_ne!(fnv1_32(b"a"), 0xe40c_292c);
}

#[test]
fn safe_encode_maps_digits_to_the_vowel_free_alphabet() {
    assert_eq!(safe_encode("0123456789"), "456789bcdf");
    assert_eq!(safe_encode(""), "");
}

#[test]
fn go_json_sorts_keys_and_escapes_like_go() {
    let v = json!({"b": 1, "a": "<x>&\u{2028}", "$patch": "replace", "c": [true, null, {"z": 0.5, "y": "\n\t\"\\"}]});
    let expected = r#"{"$patch":"replace","a":"\u003cx\u003e\u0026\u2028","b":1,"c":[true,null,{"y":"\n\t\"\\","z":0.5}]}"#;
    assert_eq!(String::from_utf8(go_json(&v)).unwrap(), expected);
}

#[test]
fn go_json_escapes_control_characters() {
    let v = json!("\u{1}\u{8}\u{c}\u{1f}");
    assert_eq!(
        String::from_utf8(go_json(&v)).unwrap(),
        r#""\u0001\b\f\u001f""#
    );
    // The first printable character, and DEL, travel as they are.
    let v = json!(" a\u{7f}");
    assert_eq!(String::from_utf8(go_json(&v)).unwrap(), "\" a\u{7f}\"");
}

#[test]
fn go_json_prints_numbers_as_go_float64() {
    let cases = [
        (json!(30), "30"),
        (json!(-0.25), "-0.25"),
        (json!(1e20), "100000000000000000000"),
        (json!(1e21), "1e+21"),
        (json!(1.5e-7), "1.5e-7"),
        (json!(0.000001), "0.000001"),
        (json!(123456789012_i64), "123456789012"),
    ];
    for (value, text) in cases {
        assert_eq!(String::from_utf8(go_json(&value)).unwrap(), text, "{value}");
    }
}

#[test]
fn go_json_reproduces_upstream_revision_bytes() {
    assert_eq!(go_json(&parse(V1_33_DATA)), V1_33_DATA.as_bytes());
}

#[test]
fn hash_matches_upstream_v1_33_revision_name() {
    let hash = hash_revision(&parse(V1_33_DATA), 0);
    assert_eq!(hash, "c77f6d978");
    assert_eq!(revision_name("test", &hash), "test-c77f6d978");
}

#[test]
fn hash_matches_upstream_v1_34_revision_name() {
    assert_eq!(hash_revision(&parse(V1_34_DATA), 0), "776999688b");
}

#[test]
fn revision_data_drops_nulls_and_adds_patch_replace() {
    let set = json!({
        "metadata": {"name": "test", "annotations": {"ignored": "yes"}},
        "spec": {
            "replicas": 3,
            "updateStrategy": {"type": "Recreate"},
            "template": {
                "metadata": {"labels": {"app": "foo"}, "annotations": {"test": "value"}, "creationTimestamp": null},
                "spec": {"containers": [{"image": "test", "imagePullPolicy": "Always", "name": "test", "resources": {}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
                         "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {}, "terminationGracePeriodSeconds": 30}
            }
        }
    });
    let data = revision_data(&set).unwrap();
    assert_eq!(data, parse(V1_34_DATA));
    // Stored data serializes in upstream's byte order.
    assert_eq!(serde_json::to_string(&data).unwrap(), V1_34_DATA);
    assert_eq!(hash_revision(&data, 0), "776999688b");
}

#[test]
fn strategy_change_alone_keeps_the_hash() {
    let mut set = json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": {"spec": {"containers": [{"name": "c", "image": "a"}]}}}});
    let before = hash_revision(&revision_data(&set).unwrap(), 0);
    set["spec"]["updateStrategy"] = json!({"type": "Recreate"});
    set["spec"]["replicas"] = json!(7);
    assert_eq!(hash_revision(&revision_data(&set).unwrap(), 0), before);
}

#[test]
fn restarted_at_annotation_changes_the_hash() {
    let mut set =
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "a"}]}}}});
    let before = hash_revision(&revision_data(&set).unwrap(), 0);
    set["spec"]["template"]["metadata"] =
        json!({"annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-22T01:00:00Z"}});
    assert_ne!(hash_revision(&revision_data(&set).unwrap(), 0), before);
}

#[test]
fn collision_count_changes_the_hash() {
    let data = parse(V1_34_DATA);
    assert_ne!(hash_revision(&data, 0), hash_revision(&data, 1));
}

#[test]
fn missing_template_is_an_error() {
    assert_eq!(
        revision_data(&json!({"spec": {}})),
        Err(RevisionError::MissingTemplate)
    );
}

#[test]
fn revision_name_cuts_long_prefixes() {
    let long = "a".repeat(300);
    let name = revision_name(&long, "hash");
    assert_eq!(name.len(), 223 + 1 + 4);
}

#[test]
fn next_revision_number_is_max_plus_one() {
    let rev = |n| ControllerRevision {
        revision: Some(n),
        ..ControllerRevision::default()
    };
    assert_eq!(next_revision_number(&[]), 1);
    assert_eq!(next_revision_number(&[rev(3), rev(1), rev(2)]), 4);
}

#[test]
fn revision_template_round_trips() {
    let rev = ControllerRevision {
        data: RawExtension(parse(V1_34_DATA)),
        ..ControllerRevision::default()
    };
    let template = revision_template(&rev).unwrap();
    let labels = template.metadata.unwrap().labels.unwrap();
    assert_eq!(labels.get("app").map(String::as_str), Some("foo"));
    assert_eq!(
        template.spec.unwrap().containers[0].image.as_deref(),
        Some("test")
    );
}

#[test]
fn revision_template_reports_corrupt_data() {
    let rev = ControllerRevision {
        metadata: ObjectMeta {
            name: Some("web-1".into()),
            ..ObjectMeta::default()
        },
        data: RawExtension(json!({"spec": {}})),
        ..ControllerRevision::default()
    };
    assert!(matches!(
        revision_template(&rev),
        Err(RevisionError::CorruptRevision { .. })
    ));
}

#[test]
fn revisions_written_before_v1_34_equal_todays_data() {
    assert!(data_key(&parse(V1_33_DATA)) == data_key(&parse(V1_34_DATA)));
    let other = json!({"spec": {"template": {"$patch": "replace", "spec": {}}}});
    assert!(data_key(&parse(V1_34_DATA)) != data_key(&other));
}

#[test]
fn the_data_key_is_the_go_json_of_the_data_without_nulls() {
    let v = serde_json::json!({"b": null, "a": {"x": null, "y": [null, {"z": null, "w": 1}]}});
    assert_eq!(data_key(&v), go_json(&strip_nulls(&v)));
    assert_eq!(
        String::from_utf8(data_key(&v)).unwrap(),
        r#"{"a":{"y":[null,{"w":1}]}}"#
    );
}
