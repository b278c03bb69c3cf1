@kruise @lifecycle
Feature: OpenKruise Advanced StatefulSet: the PreparingDelete lifecycle hook
  OpenKruise Advanced StatefulSet, "Lifecycle hook": "This is similar to
  Lifecycle hook of CloneSet." "Specified Pod Deletion": pod deletion by the
  label "will trigger the PreparingDelete lifecycle hook (see below)".

  The page defers the hook's behaviour to CloneSet's documentation, which is
  not among the source texts; the scenarios take it from Kruise's source
  (clusters/targets/openkruise-facts.md, section 9): with
  `lifecycle.preDelete.labelsHandler` set, a pod carrying that label is not
  deleted but labelled `lifecycle.apps.kruise.io/state: PreparingDelete`,
  and deleted once the label is gone. Every deletion goes that way: a
  scale-down's and a specified deletion's alike. The scale-down comes 2
  seconds after the label, so that the controller has seen it.

  # cite: openkruise-advanced-statefulset | Lifecycle hook | "This is similar to Lifecycle hook of CloneSet."
  # cite: openkruise-advanced-statefulset | Specified Pod Deletion | "will trigger the PreparingDelete lifecycle hook (see below)"

  Background:
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        podManagementPolicy: Parallel
        serviceName: web
        lifecycle:
          preDelete:
            labelsHandler:
              example.com/hold: "true"
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

  # covers: K19
  Scenario: a scale-down waits for the hook of the pod it removes
    When the label "example.com/hold" of pod "web-2" is set to "true"
    Then for 2 seconds no pod of "web" is created or deleted
    When "web" is scaled to 2 replicas
    Then within 30 seconds pod "web-2" has "/metadata/labels/lifecycle.apps.kruise.io~1state" set to "PreparingDelete"
    And for 3 seconds pod "web-2" is neither deleted nor replaced
    When the label "example.com/hold" is removed from pod "web-2"
    Then within 30 seconds the pods of "web" are web-0, web-1

  # covers: K8 K19
  Scenario: a specified deletion waits for the hook too
    When the label "example.com/hold" of pod "web-1" is set to "true"
    And the label "apps.kruise.io/specified-delete" of pod "web-1" is set to "true"
    Then within 30 seconds pod "web-1" has "/metadata/labels/lifecycle.apps.kruise.io~1state" set to "PreparingDelete"
    And for 3 seconds pod "web-1" is neither deleted nor replaced
    When the label "example.com/hold" is removed from pod "web-1"
    Then within 30 seconds pod "web-1" is terminating
