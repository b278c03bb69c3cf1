@base @identity
Feature: Stable identity: names, hostnames, labels and claims
  StatefulSet concepts, "Pod Identity": each pod gets "a unique identity that
  is comprised of an ordinal, a stable network identity, and stable
  storage": the name `$(statefulset name)-$(ordinal)`, the hostname, the
  labels `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`,
  and claims named `$(claim template)-$(statefulset name)-$(ordinal)`.
  "Start ordinal": `.spec.ordinals.start` shifts the range.

  Scenario: names, hostname, subdomain, labels and claim names
    Given a StatefulSet "web" with 2 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    Then pod "web-1" has "/spec/hostname" set to "web-1"
    And pod "web-1" has "/spec/subdomain" set to "web"
    And pod "web-1" has "/metadata/labels/statefulset.kubernetes.io~1pod-name" set to "web-1"
    And pod "web-1" has "/metadata/labels/apps.kubernetes.io~1pod-index" set to "1"
    And the PersistentVolumeClaim "data-web-1" has "/status/phase" set to "Bound"
    And the PersistentVolumeClaim "data-web-0" has "/metadata/labels/app" set to "web"

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
