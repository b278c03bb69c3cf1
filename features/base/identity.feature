@base @identity
Feature: Stable identity: names, hostnames, labels and claims
  StatefulSet concepts, "Pod Identity": "StatefulSet Pods have a unique
  identity that is comprised of an ordinal, a stable network identity, and
  stable storage." "Stable Network ID": "The pattern for the constructed
  hostname is $(statefulset name)-$(ordinal)." The details come from
  upstream-statefulset-facts, "Identity": "Labels
  statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index;
  spec.hostname = pod name, spec.subdomain = serviceName."; "PVC name <claim
  template name>-<set>-<ordinal>, labels = template labels + selector
  matchLabels"; ".spec.ordinals.start shifts the range to [start,
  start+replicas)." "Stable Storage": "If no StorageClass is specified,
  then the default StorageClass will be used." The controller keeps that identity: upstream's
  processReplica compares every pod with its identity on each sync and
  updates a pod whose labels no longer match (pkg/controller/statefulset,
  identityMatches and UpdateStatefulPod), in place.

  Where sources disagree: the concepts page ("Ordinal Index") numbers the pods
  "from 0 up through N-1" and never mentions `.spec.ordinals.start` or the
  pod-index label. The spec follows upstream-statefulset-facts, which
  describes the reference implementation; OpenKruise Advanced StatefulSet,
  "Start ordinal", has the same field behind a gate of its own.

  # cite: statefulset-concepts | Pod Identity | "StatefulSet Pods have a unique identity that is comprised of an ordinal, a stable network identity, and stable storage."
  # cite: statefulset-concepts | Stable Network ID | "The pattern for the constructed hostname is $(statefulset name)-$(ordinal)."
  # cite: upstream-statefulset-facts | Identity | "Labels statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index; spec.hostname = pod name, spec.subdomain = serviceName."
  # cite: upstream-statefulset-facts | Identity | "PVC name <claim template name>-<set>-<ordinal>, labels = template labels + selector matchLabels"
  # cite: upstream-statefulset-facts | Identity | ".spec.ordinals.start shifts the range to [start, start+replicas)."
  # cite: statefulset-concepts | Stable Storage | "If no StorageClass is specified, then the default StorageClass will be used."
  # cite: statefulset-concepts | Ordinal Index | "each Pod in the StatefulSet will be assigned an integer ordinal, from 0 up through N-1, that is unique over the Set."

  # covers: C2 C3 C4 C5 C6 K2
  Scenario: names, hostname, subdomain, labels and claim names
    Given a StatefulSet "web" with 2 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    Then pod "web-1" has "/spec/hostname" set to "web-1"
    And pod "web-1" has "/spec/subdomain" set to "web"
    And pod "web-1" has "/metadata/labels/statefulset.kubernetes.io~1pod-name" set to "web-1"
    And pod "web-1" has "/metadata/labels/apps.kubernetes.io~1pod-index" set to "1"
    And the PersistentVolumeClaim "data-web-1" has "/status/phase" set to "Bound"
    And the PersistentVolumeClaim "data-web-0" has "/metadata/labels/app" set to "web"

  # covers: K3
  Scenario: ordinals start where .spec.ordinals.start says
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        ordinals: {start: 5}
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    Then pod "web-5" has "/metadata/labels/apps.kubernetes.io~1pod-index" set to "5"
    And pod "web-6" has "/spec/hostname" set to "web-6"

  Scenario: a pod whose pod-name label is removed gets it back, in place
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When the label "statefulset.kubernetes.io/pod-name" is removed from pod "web-1"
    Then within 30 seconds pod "web-1" has "/metadata/labels/statefulset.kubernetes.io~1pod-name" set to "web-1"
    And pod "web-1" was neither deleted nor replaced

  # covers: I9
  Scenario: a pod's subdomain is the set's serviceName, not the set's name
    # rejects: a controller that writes the set's name as the subdomain (indistinguishable wherever the two are the same)
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        serviceName: nginx
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    Then pod "web-0" has "/spec/subdomain" set to "nginx"
    And pod "web-1" has "/spec/subdomain" set to "nginx"
    And pod "web-1" has "/spec/hostname" set to "web-1"

  # covers: C7
  Scenario: claims of a template that names no storage class get the cluster's default class
    Stable Storage: "If no StorageClass is specified, then the default
    StorageClass will be used." kube-apiserver's DefaultStorageClass
    admission fills it in when a claim is created without
    spec.storageClassName; kind installs the default class standard. A
    controller that writes an empty class takes the default away.
    Given a StatefulSet "web" with 2 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    Then every PersistentVolumeClaim of "web" names the cluster's default StorageClass

  # covers: C6
  Scenario: a template's own volume is kept beside the volume of its claim
    Upstream's `updateStorage` (pkg/controller/statefulset/stateful_set_utils.go,
    v1.32) points the volume of each claim template at the pod's claim and
    keeps every other volume of the template. kube-apiserver refuses a pod
    with a volume that has no name, or with a volume mount that names no
    volume of the pod (`ValidateVolumes` and `ValidateVolumeMounts`,
    pkg/apis/core/validation/validation.go), so a controller that drops the
    template's own volume, or writes the claim's volume without its name,
    never has a pod created.
    # rejects: a controller that keeps only the claims' volumes and drops the template's own
    # rejects: a controller that writes a claim's volume without the claim template's name
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
                volumeMounts:
                  - {name: data, mountPath: /data}
                  - {name: scratch, mountPath: /scratch}
            volumes:
              - name: scratch
                emptyDir: {}
        volumeClaimTemplates:
          - apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: data
            spec:
              accessModes: [ReadWriteOnce]
              resources:
                requests: {storage: 1Gi}
      """
    Then within 30 seconds the status of "web" reports 2 replicas, 2 of them ready
    And the PersistentVolumeClaim "data-web-1" has "/status/phase" set to "Bound"

  Scenario: the template's finalizers are on the pods built from it
    Upstream builds each pod with `GetPodFromTemplate`
    (pkg/controller/controller_utils.go, v1.32), which copies the template's
    labels, annotations and finalizers into the pod's metadata; OpenKruise's
    controller builds its pods with the same function. The scenario removes
    the finalizer at its end, so that its namespace can go.
    # rejects: a controller that builds pods from the template's labels and spec and drops its finalizers
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 1
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
            finalizers: [example.com/keep]
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    Then pod "web-0" has "/metadata/finalizers/0" set to "example.com/keep"
    When the finalizer "example.com/keep" is removed from pod "web-0"
