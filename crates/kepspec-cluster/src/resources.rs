//! The served resource types: the built-in table and custom resources
//! derived from stored CustomResourceDefinitions.

use serde_json::Value;

use super::store::{Gr, Store};

/// Everything the server needs to know about one served resource version.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceInfo {
    /// API group ("" for core).
    pub group: String,
    /// API version.
    pub version: String,
    /// Plural name.
    pub plural: String,
    /// Singular name.
    pub singular: String,
    /// Kind.
    pub kind: String,
    /// Kind of the list type.
    pub list_kind: String,
    /// Namespace-scoped?
    pub namespaced: bool,
    /// Short names for kubectl.
    pub short_names: Vec<String>,
    /// Categories (e.g. `all`).
    pub categories: Vec<String>,
    /// Has a `status` subresource.
    pub status: bool,
    /// Has a `scale` subresource: (specReplicasPath, statusReplicasPath, labelSelectorPath).
    pub scale: Option<(String, String, Option<String>)>,
    /// Has a `binding` subresource (pods).
    pub binding: bool,
    /// metadata.generation is maintained (bumped on spec changes).
    pub generation: bool,
    /// Built-in (list items are served without apiVersion/kind, as upstream).
    pub builtin: bool,
    /// A custom resource's `additionalPrinterColumns` for `kubectl get`.
    pub printer_columns: Vec<PrinterColumn>,
    /// A custom resource's structural schema (`openAPIV3Schema`), by which
    /// unknown fields are pruned and types checked.
    pub schema: Option<std::sync::Arc<Value>>,
}

/// One `additionalPrinterColumns` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: String,
    /// Simple JSONPath (`.spec.replicas`, `.status.conditions[0].type`).
    pub json_path: String,
    /// 0 = default output, >0 = wide only.
    pub priority: i64,
}

impl ResourceInfo {
    /// The storage partition (`events.k8s.io` Events share core Events' storage).
    pub fn gr(&self) -> Gr {
        if self.group == "events.k8s.io" && self.plural == "events" {
            return Gr::new("", "events");
        }
        Gr::new(&self.group, &self.plural)
    }

    /// A review the server answers and does not store
    /// (authorization.k8s.io): `create` is its only verb.
    pub fn create_only(&self) -> bool {
        self.builtin && self.group == "authorization.k8s.io"
    }

    /// `apps/v1` or `v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

struct Builtin {
    group: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
    short: &'static [&'static str],
    status: bool,
    generation: bool,
    all: bool,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        group: "",
        plural: "namespaces",
        kind: "Namespace",
        namespaced: false,
        short: &["ns"],
        status: true,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "pods",
        kind: "Pod",
        namespaced: true,
        short: &["po"],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "",
        plural: "persistentvolumeclaims",
        kind: "PersistentVolumeClaim",
        namespaced: true,
        short: &["pvc"],
        status: true,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "persistentvolumes",
        kind: "PersistentVolume",
        namespaced: false,
        short: &["pv"],
        status: true,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "nodes",
        kind: "Node",
        namespaced: false,
        short: &["no"],
        status: true,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "services",
        kind: "Service",
        namespaced: true,
        short: &["svc"],
        status: true,
        generation: false,
        all: true,
    },
    Builtin {
        group: "",
        plural: "configmaps",
        kind: "ConfigMap",
        namespaced: true,
        short: &["cm"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "secrets",
        kind: "Secret",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "serviceaccounts",
        kind: "ServiceAccount",
        namespaced: true,
        short: &["sa"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "events",
        kind: "Event",
        namespaced: true,
        short: &["ev"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "apps",
        plural: "statefulsets",
        kind: "StatefulSet",
        namespaced: true,
        short: &["sts"],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "apps",
        plural: "controllerrevisions",
        kind: "ControllerRevision",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "storage.k8s.io",
        plural: "storageclasses",
        kind: "StorageClass",
        namespaced: false,
        short: &["sc"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "coordination.k8s.io",
        plural: "leases",
        kind: "Lease",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "events.k8s.io",
        plural: "events",
        kind: "Event",
        namespaced: true,
        short: &["ev"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "",
        plural: "endpoints",
        kind: "Endpoints",
        namespaced: true,
        short: &["ep"],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "apps",
        plural: "deployments",
        kind: "Deployment",
        namespaced: true,
        short: &["deploy"],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "apps",
        plural: "replicasets",
        kind: "ReplicaSet",
        namespaced: true,
        short: &["rs"],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "apps",
        plural: "daemonsets",
        kind: "DaemonSet",
        namespaced: true,
        short: &["ds"],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "batch",
        plural: "jobs",
        kind: "Job",
        namespaced: true,
        short: &[],
        status: true,
        generation: true,
        all: true,
    },
    Builtin {
        group: "policy",
        plural: "poddisruptionbudgets",
        kind: "PodDisruptionBudget",
        namespaced: true,
        short: &["pdb"],
        status: true,
        generation: true,
        all: false,
    },
    Builtin {
        group: "discovery.k8s.io",
        plural: "endpointslices",
        kind: "EndpointSlice",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "rbac.authorization.k8s.io",
        plural: "clusterroles",
        kind: "ClusterRole",
        namespaced: false,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "rbac.authorization.k8s.io",
        plural: "clusterrolebindings",
        kind: "ClusterRoleBinding",
        namespaced: false,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "rbac.authorization.k8s.io",
        plural: "roles",
        kind: "Role",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "rbac.authorization.k8s.io",
        plural: "rolebindings",
        kind: "RoleBinding",
        namespaced: true,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "authorization.k8s.io",
        plural: "selfsubjectaccessreviews",
        kind: "SelfSubjectAccessReview",
        namespaced: false,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "authorization.k8s.io",
        plural: "selfsubjectrulesreviews",
        kind: "SelfSubjectRulesReview",
        namespaced: false,
        short: &[],
        status: false,
        generation: false,
        all: false,
    },
    Builtin {
        group: "apiextensions.k8s.io",
        plural: "customresourcedefinitions",
        kind: "CustomResourceDefinition",
        namespaced: false,
        short: &["crd", "crds"],
        status: true,
        generation: true,
        all: false,
    },
];

fn builtin_info(b: &Builtin) -> ResourceInfo {
    let scaled = matches!(b.plural, "statefulsets" | "deployments" | "replicasets");
    let scale = scaled.then(|| {
        (
            ".spec.replicas".to_string(),
            ".status.replicas".to_string(),
            Some(".status.selector".to_string()),
        )
    });
    ResourceInfo {
        group: b.group.to_string(),
        version: "v1".to_string(),
        plural: b.plural.to_string(),
        singular: b.kind.to_lowercase(),
        kind: b.kind.to_string(),
        list_kind: format!("{}List", b.kind),
        namespaced: b.namespaced,
        short_names: b.short.iter().map(|s| s.to_string()).collect(),
        categories: if b.all {
            vec!["all".to_string()]
        } else {
            Vec::new()
        },
        status: b.status,
        scale,
        binding: b.plural == "pods",
        generation: b.generation,
        builtin: true,
        printer_columns: Vec::new(),
        schema: None,
    }
}

/// The built-in resources.
pub fn builtins() -> Vec<ResourceInfo> {
    BUILTINS.iter().map(builtin_info).collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The served versions of one stored CustomResourceDefinition.
pub(crate) fn from_crd(crd: &Value) -> Vec<ResourceInfo> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default();
    let names = &spec["names"];
    let plural = names["plural"].as_str().unwrap_or_default();
    let kind = names["kind"].as_str().unwrap_or_default();
    if group.is_empty() || plural.is_empty() || kind.is_empty() {
        return Vec::new();
    }
    if crd["metadata"].get("deletionTimestamp").is_some() {
        return Vec::new();
    }
    let singular = names["singular"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| kind.to_lowercase());
    let list_kind = names["listKind"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{kind}List"));
    let namespaced = spec["scope"].as_str() != Some("Cluster");
    let mut out = Vec::new();
    for v in spec["versions"].as_array().into_iter().flatten() {
        if v["served"].as_bool() == Some(false) {
            continue;
        }
        let Some(version) = v["name"].as_str() else {
            continue;
        };
        let sub = &v["subresources"];
        let scale = sub.get("scale").map(|s| {
            (
                s["specReplicasPath"]
                    .as_str()
                    .unwrap_or(".spec.replicas")
                    .to_string(),
                s["statusReplicasPath"]
                    .as_str()
                    .unwrap_or(".status.replicas")
                    .to_string(),
                s["labelSelectorPath"].as_str().map(str::to_string),
            )
        });
        out.push(ResourceInfo {
            group: group.to_string(),
            version: version.to_string(),
            plural: plural.to_string(),
            singular: singular.clone(),
            kind: kind.to_string(),
            list_kind: list_kind.clone(),
            namespaced,
            short_names: strs(&names["shortNames"]),
            categories: strs(&names["categories"]),
            status: sub.get("status").is_some(),
            scale,
            binding: false,
            generation: true,
            builtin: false,
            schema: v
                .as_object()
                .and_then(super::structural::schema_of)
                .map(std::sync::Arc::new),
            printer_columns: v["additionalPrinterColumns"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| {
                    Some(PrinterColumn {
                        name: c["name"].as_str()?.to_string(),
                        type_: c["type"].as_str().unwrap_or("string").to_string(),
                        json_path: c["jsonPath"].as_str()?.to_string(),
                        priority: c["priority"].as_i64().unwrap_or(0),
                    })
                })
                .collect(),
        });
    }
    out
}

/// Every served resource: built-ins plus custom resources.
pub(crate) fn all(store: &Store) -> Vec<ResourceInfo> {
    let mut out = builtins();
    let (crds, _) = store.list(
        &Gr::new("apiextensions.k8s.io", "customresourcedefinitions"),
        None,
    );
    for crd in &crds {
        out.extend(from_crd(crd));
    }
    out
}

/// Looks up `group/version/plural`.
pub(crate) fn find(
    store: &Store,
    group: &str,
    version: &str,
    plural: &str,
) -> Option<ResourceInfo> {
    if let Some(b) = BUILTINS
        .iter()
        .find(|b| b.group == group && b.plural == plural && version == "v1")
    {
        return Some(builtin_info(b));
    }
    all(store)
        .into_iter()
        .find(|r| !r.builtin && r.group == group && r.version == version && r.plural == plural)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crd_versions_become_resources() {
        let crd = json!({"spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"]},
            "versions": [{"name": "v1", "served": true, "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"}}},
                         {"name": "v2", "served": false}]}});
        let r = from_crd(&crd);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].list_kind, "WidgetList");
        assert!(r[0].status);
        assert_eq!(
            r[0].scale.as_ref().map(|s| s.0.as_str()),
            Some(".spec.size")
        );
        assert_eq!(r[0].short_names, vec!["wd"]);
    }

    #[test]
    fn builtins_include_statefulset_scale() {
        let s = Store::new(10);
        let sts = find(&s, "apps", "v1", "statefulsets").unwrap();
        assert!(sts.scale.is_some() && sts.status && sts.namespaced);
        assert!(find(&s, "apps", "v2", "statefulsets").is_none());
        assert!(find(&s, "", "v1", "bogus").is_none());
    }
}
