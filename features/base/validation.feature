@base @validation
Feature: What the API accepts and refuses for a StatefulSet
  upstream-statefulset-facts, "Validation (apiserver)": "selector must match
  template labels; selector and volumeClaimTemplates are immutable on update."
  StatefulSet concepts, "Pod Selector": "Failing to specify a matching Pod
  Selector will result in a validation error during StatefulSet creation." No
  reference text says that podManagementPolicy cannot change after creation:
  that rule is kube-apiserver's, whose error message lists the fields an
  update may change (the list differs between releases, so the scenario
  matches only the start of the message).

  StatefulSet concepts, "Components": "The name of a StatefulSet object must
  be a valid DNS subdomain name." Where sources disagree: upstream's
  validation (pkg/apis/apps/validation, `ValidateStatefulSetName`) has since
  required a DNS label, which has no dots, because a name with a dot cannot
  name its pods' hostnames; a name such as `web.v1` is accepted by the rule
  the page states and refused by upstream's. The spec checks only names both
  refuse (upper case, an underscore).

  The immutability of volumeClaimTemplates must not refuse an update that
  changes nothing: upstream's integration test TestVolumeTemplateNoopUpdate
  creates a set whose claim templates carry apiVersion and kind, then writes
  its spec back exactly as it sent it, and expects the update to succeed.

  # cite: statefulset-concepts | Components | "The name of a StatefulSet object must be a valid DNS subdomain name."
  # cite: upstream-statefulset-facts | Validation (apiserver) | "selector must match template labels; selector and volumeClaimTemplates are immutable on update."
  # cite: statefulset-concepts | Pod Selector | "Failing to specify a matching Pod Selector will result in a validation error during StatefulSet creation."

  Scenario: podManagementPolicy cannot be changed after creation
    Given a StatefulSet "web" with 1 replica and pod management policy "OrderedReady"
    When an attempt is made to change the pod management policy of "web" to "Parallel"
    Then the request is refused with code 422 and a message containing "updates to statefulset spec for fields other than"

  # covers: C11
  Scenario: a selector that does not match the template's labels is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 1
        serviceName: web
        selector:
          matchLabels: {app: other}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.template.metadata.labels"

  # covers: C12
  Scenario Outline: a StatefulSet named <name> is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: <name>
      spec:
        replicas: 1
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
    Then the request is refused with code 422 and a message containing "metadata.name: Invalid value"

    Examples:
      | name   |
      | Web    |
      | web_1  |

  # covers: I1
  Scenario: writing back the spec a set was created with, claim templates carrying apiVersion and kind, is accepted
    # rejects: an apiserver whose immutability check of volumeClaimTemplates compares the bytes sent (with apiVersion and kind) against the stored form (without them), refusing an update that changes nothing
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
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
                volumeMounts:
                  - {name: www, mountPath: /data/www}
        volumeClaimTemplates:
          - apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: www
            spec:
              accessModes: [ReadWriteOnce]
              resources:
                requests: {storage: 1Gi}
      """
    When an attempt is made to replace the spec of "web" with the spec of this manifest:
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
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
                volumeMounts:
                  - {name: www, mountPath: /data/www}
        volumeClaimTemplates:
          - apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: www
            spec:
              accessModes: [ReadWriteOnce]
              resources:
                requests: {storage: 1Gi}
      """
    Then the request is accepted
