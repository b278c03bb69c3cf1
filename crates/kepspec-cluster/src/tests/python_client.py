"""The official Python client (kubernetes 37) against the embedded cluster,
used as its users write it: creates and replaces (sent without a
Content-Type), a strategic merge patch, a watch, a foreground delete, and a
StatefulSet created and replaced through AppsV1Api, a paginated list with a
create between its pages and an Exact list, and both answered 410 Expired
once the cluster's window of 50 changes no longer reaches back to them.
Prints "ok" on success. Run by crates/kepspec-cluster/src/tests/python.rs
with the kubeconfig path as argument."""
import sys, threading
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
apps = client.AppsV1Api()
ns = "py-client"
v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
cm = v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c"), data={"a": "1"}))
cm.data["a"] = "2"
cm = v1.replace_namespaced_config_map("c", ns, cm)
assert cm.data["a"] == "2", cm.data
v1.patch_namespaced_config_map("c", ns, {"data": {"b": "3"}})
got = v1.read_namespaced_config_map("c", ns)
assert got.data == {"a": "2", "b": "3"}, got.data
events = []
w = watch.Watch()
for ev in w.stream(v1.list_namespaced_config_map, ns, timeout_seconds=2):
    events.append((ev["type"], ev["object"].metadata.name))
    w.stop()
assert events == [("ADDED", "c")], events
v1.delete_namespaced_config_map("c", ns, body=client.V1DeleteOptions(propagation_policy="Foreground"))
sts = client.V1StatefulSet(
    metadata=client.V1ObjectMeta(name="web"),
    spec=client.V1StatefulSetSpec(
        service_name="web", replicas=2,
        selector=client.V1LabelSelector(match_labels={"app": "web"}),
        update_strategy=client.V1StatefulSetUpdateStrategy(type="RollingUpdate"),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels={"app": "web"}),
            spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="registry.k8s.io/pause:3.10")]))))
sts = apps.create_namespaced_stateful_set(ns, sts)
assert sts.spec.pod_management_policy == "OrderedReady", sts.spec.pod_management_policy
sts.spec.replicas = 3
sts = apps.replace_namespaced_stateful_set("web", ns, sts)
assert sts.spec.replicas == 3
assert sts.metadata.generation == 2, sts.metadata.generation
# A paginated list is one snapshot, as etcd serves kube-apiserver: a
# ConfigMap created between its pages is not in it, every page carries the
# first page's resourceVersion, and an Exact list at that resourceVersion
# is the same list.
for i in range(3):
    v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=f"p{i}")))
first = v1.list_namespaced_config_map(ns, limit=2)
assert first.metadata._continue, first.metadata
v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="p9")))
rest = v1.list_namespaced_config_map(ns, limit=100, _continue=first.metadata._continue)
names = [c.metadata.name for c in first.items + rest.items]
assert "p9" not in names, names
assert rest.metadata.resource_version == first.metadata.resource_version, (rest.metadata, first.metadata)
exact = v1.list_namespaced_config_map(ns, resource_version=first.metadata.resource_version, resource_version_match="Exact")
assert [c.metadata.name for c in exact.items] == names, ([c.metadata.name for c in exact.items], names)
assert "p9" in [c.metadata.name for c in v1.list_namespaced_config_map(ns).items]
# Past the window (etcd compacted, for kube-apiserver), the continue token
# and the Exact list are 410 Expired.
for i in range(60):
    v1.patch_namespaced_config_map("p0", ns, {"data": {"n": str(i)}})
too_old = {
    "exact": lambda: v1.list_namespaced_config_map(ns, resource_version=first.metadata.resource_version, resource_version_match="Exact"),
    "continue": lambda: v1.list_namespaced_config_map(ns, limit=100, _continue=first.metadata._continue),
}
for what, call in too_old.items():
    try:
        call()
    except client.exceptions.ApiException as e:
        assert e.status == 410, (what, e.status, e.body)
        assert '"reason":"Expired"' in e.body.replace(" ", ""), (what, e.body)
    else:
        raise AssertionError(f"{what}: a list past the window was answered")
print("ok")
