//! Tests of version and feature-gate gating.

use serde_json::Value;

use super::super::gating::{kind_config_for, Version};
use super::super::*;
use super::{kruise, root, tags};

// ---- gating ----------------------------------------------------------------

#[test]
fn server_versions_parse_from_what_servers_say() {
    for (text, v) in [
        ("v1.37.0", Version::patch(1, 37, 0)),
        ("v1.36.2-gke.100", Version::patch(1, 36, 2)),
        ("1.35+", Version::new(1, 35)),
        ("1.35", Version::new(1, 35)),
        ("v1.34.1+k3s1", Version::patch(1, 34, 1)),
    ] {
        assert_eq!(Version::parse(text), Ok(v), "{text}");
    }
    for bad in ["", "v1", "latest", "vx.y"] {
        assert!(Version::parse(bad).is_err(), "{bad}");
    }
    let mut info = k8s_openapi::apimachinery::pkg::version::Info {
        major: "1".into(),
        minor: "35+".into(),
        git_version: "v1.35.3-eks-1".into(),
        ..Default::default()
    };
    assert_eq!(Version::of_server(&info), Ok(Version::patch(1, 35, 3)));
    info.git_version = String::new();
    assert_eq!(Version::of_server(&info), Ok(Version::new(1, 35)));
    info.git_version = "v1.35.3".into();
    info.emulation_major = Some("1".into());
    info.emulation_minor = Some("34".into());
    assert_eq!(Version::of_server(&info), Ok(Version::new(1, 34)));
    assert_eq!(
        Version::of_node_image("kindest/node:v1.36.4@sha256:099e04"),
        Some(Version::patch(1, 36, 4))
    );
    assert_eq!(Version::of_node_image("kindest/node"), None);
    assert_eq!(Version::of_node_image("localhost:5000/node"), None);
    assert_eq!(Version::new(1, 37).to_string(), "v1.37");
    assert_eq!(Version::patch(1, 37, 1).to_string(), "v1.37.1");
    // An unknown patch compares as .0.
    assert_eq!(Version::new(1, 35), Version::patch(1, 35, 0));
    assert!(Version::new(1, 35) < Version::patch(1, 35, 4));
}

#[test]
fn recreate_needs_v1_37_and_its_gate() {
    let t = tags(&["@kep-3541", "@gate-StatefulSetRecreateStrategy"]);
    let on = FeatureGates::parse("StatefulSetRecreateStrategy=true").unwrap();
    let r = skip_reason(&t, Version::patch(1, 36, 4), &on).unwrap();
    assert_eq!(
        r,
        "needs Kubernetes v1.37.0 or later for feature gate StatefulSetRecreateStrategy (KEP-3541 alpha, PR #137187); the cluster runs v1.36.4"
    );
    assert_eq!(skip_reason(&t, Version::patch(1, 37, 0), &on), None);
    assert_eq!(skip_reason(&t, Version::new(2, 0), &on), None);
    let r = skip_reason(&t, Version::patch(1, 37, 0), &FeatureGates::default()).unwrap();
    assert!(
        r.starts_with("needs feature gate StatefulSetRecreateStrategy, which is off on this cluster (off by default"),
        "{r}"
    );
    let off = FeatureGates::parse("StatefulSetRecreateStrategy=false").unwrap();
    assert_eq!(
        skip_reason(&t, Version::patch(1, 37, 0), &off).as_deref(),
        Some("needs feature gate StatefulSetRecreateStrategy, which is off on this cluster")
    );
}

#[test]
fn max_unavailable_needs_v1_35_and_its_gate() {
    let t = tags(&["kep-961", "gate-MaxUnavailableStatefulSet"]);
    let on = FeatureGates::default().with("MaxUnavailableStatefulSet", true);
    assert!(skip_reason(&t, Version::patch(1, 34, 2), &on)
        .unwrap()
        .contains("v1.35.0 or later"));
    assert_eq!(skip_reason(&t, Version::patch(1, 35, 8), &on), None);
    // Off by default in v1.36 (kubernetes PR #137904).
    assert!(skip_reason(&t, Version::patch(1, 36, 4), &FeatureGates::default()).is_some());
    // Untagged scenarios and unknown gates run unless turned off.
    assert_eq!(
        skip_reason(
            &tags(&["base"]),
            Version::new(1, 20),
            &FeatureGates::default()
        ),
        None
    );
    let other = tags(&["gate-SomethingNew"]);
    assert_eq!(
        skip_reason(&other, Version::new(1, 30), &FeatureGates::default()),
        None
    );
    let off = FeatureGates::parse("SomethingNew=false").unwrap();
    assert!(skip_reason(&other, Version::new(1, 30), &off).is_some());
}

#[test]
fn a_since_tag_skips_older_releases() {
    let t = tags(&["@since-v1.37", "@kep-961"]);
    let g = FeatureGates::default();
    assert_eq!(
        skip_reason(&t, Version::patch(1, 36, 4), &g).as_deref(),
        Some("encodes behaviour first released in v1.37 (@since-v1.37); the cluster runs v1.36.4")
    );
    assert_eq!(skip_reason(&t, Version::patch(1, 37, 0), &g), None);
}

#[test]
fn embedded_only_scenarios_skip_on_real_clusters() {
    let all_on =
        FeatureGates::parse("StatefulSetRecreateStrategy=true,MaxUnavailableStatefulSet=true")
            .unwrap();
    assert_eq!(
        skip_reason(
            &tags(&["@embedded-only", "@base"]),
            Version::new(1, 37),
            &all_on
        )
        .as_deref(),
        Some("needs the embedded cluster's fault injection")
    );
    let real = ClusterFacts {
        embedded: false,
        version: Version::patch(1, 35, 0),
        version_source: "test".into(),
        gates: FeatureGates::default(),
    };
    let embedded = ClusterFacts {
        embedded: true,
        ..real.clone()
    };
    let ku = kruise();
    // A vendor resource is not held to upstream's gates ...
    let mu = tags(&["kep-961", "gate-MaxUnavailableStatefulSet"]);
    let off = ClusterFacts {
        gates: FeatureGates::parse("MaxUnavailableStatefulSet=false").unwrap(),
        ..real.clone()
    };
    assert_eq!(ku.skip_reason("Parallel uses the budget", &mu, &off), None);
    assert!(Profile::upstream()
        .skip_reason("Parallel uses the budget", &mu, &off)
        .is_some());
    // ... but to the embedded cluster's fault injection.
    let eo = tags(&["base", "embedded-only"]);
    assert!(ku.skip_reason("x", &eo, &real).is_some());
    assert_eq!(ku.skip_reason("x", &eo, &embedded), None);
    assert_eq!(Profile::bundled().skip_reason("x", &eo, &embedded), None);
    // Scenarios that stage apps/v1 components do not exercise a vendor resource.
    let iso = tags(&["kep-3541", "isolated"]);
    assert!(ku
        .skip_reason("x", &iso, &embedded)
        .unwrap()
        .starts_with("stages apps/v1 StatefulSet components"));
}

#[test]
fn feature_gates_parse_from_flags_kind_configs_and_metrics() {
    let g = FeatureGates::parse(" A=true , B=false,").unwrap();
    assert_eq!(
        (g.setting("A"), g.setting("B"), g.setting("C")),
        (Some(true), Some(false), None)
    );
    assert!(FeatureGates::parse("A")
        .unwrap_err()
        .contains("expected NAME=true"));
    assert!(FeatureGates::parse("A=yes")
        .unwrap_err()
        .contains("`yes` is not true or false"));
    for file in ["bundled.yaml", "upstream.yaml"] {
        let text = std::fs::read_to_string(root().join("clusters/kind").join(file)).unwrap();
        let g = FeatureGates::from_kind_config(&text).unwrap();
        let v = Version::patch(1, 37, 0);
        assert!(
            g.enabled_at("StatefulSetRecreateStrategy", v)
                && g.enabled_at("MaxUnavailableStatefulSet", v)
        );
    }
    assert!(FeatureGates::from_kind_config("featureGates: {A: maybe}").is_err());
    assert_eq!(
        FeatureGates::from_kind_config("kind: Cluster").unwrap(),
        FeatureGates::default()
    );
    let metrics = "# HELP kubernetes_feature_enabled [BETA] ...\n# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name=\"MaxUnavailableStatefulSet\",stage=\"BETA\"} 0\nkubernetes_feature_enabled{name=\"StatefulSetRecreateStrategy\",stage=\"ALPHA\"} 1\nkubernetes_feature_enabled{name=\"WatchList\",stage=\"\"} 1\nother_metric 1\n";
    let g = FeatureGates::from_metrics(metrics);
    assert_eq!(g.setting("MaxUnavailableStatefulSet"), Some(false));
    assert_eq!(g.setting("StatefulSetRecreateStrategy"), Some(true));
    assert_eq!(g.setting("WatchList"), Some(true));
    assert_eq!(
        g.resolve("MaxUnavailableStatefulSet", Version::patch(1, 37, 0))
            .1,
        GateSource::Cluster
    );
}

#[test]
fn kind_configs_drop_gates_a_node_version_does_not_know() {
    let text = std::fs::read_to_string(root().join("clusters/kind/bundled.yaml")).unwrap();
    let old = kind_config_for(&text, Version::new(1, 36)).unwrap();
    let g = FeatureGates::from_kind_config(&old).unwrap();
    assert_eq!(g.setting("StatefulSetRecreateStrategy"), None);
    assert_eq!(g.setting("MaxUnavailableStatefulSet"), Some(true));
    let v: Value = crate::yaml::from_str(&old).unwrap();
    assert_eq!(v["kind"], "Cluster");
    assert!(v["kubeadmConfigPatches"].is_array());
    let new = kind_config_for(&text, Version::new(1, 37)).unwrap();
    let g = FeatureGates::from_kind_config(&new).unwrap();
    assert_eq!(g.setting("StatefulSetRecreateStrategy"), Some(true));
    let none = kind_config_for(&text, Version::new(1, 23)).unwrap();
    let v: Value = crate::yaml::from_str(&none).unwrap();
    assert!(v.get("featureGates").is_none());
}
