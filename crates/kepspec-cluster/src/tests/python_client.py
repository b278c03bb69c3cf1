"""The official Python client (kubernetes 37) against the embedded cluster,
used as its users write it: creates and replaces (sent without a
Content-Type), a strategic merge patch, a watch, a foreground delete, and a
StatefulSet created and replaced through AppsV1Api. Prints "ok" on success.
Run by src/sim/tests/python.rs with the kubeconfig path as argument."""
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
print("ok")
