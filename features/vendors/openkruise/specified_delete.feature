@kruise @specified-delete
Feature: OpenKruise Advanced StatefulSet: specified pod deletion
  OpenKruise Advanced StatefulSet, "Specified Pod Deletion": "Compared to
  manually deleting a Pod directly, pod deletion by labeling pod with
  apps.kruise.io/specified-delete: true will be protected by the
  maxUnavailable of the Advanced StatefulSet during deletion". "When the
  controller receives the above Pod update, it will trigger the deletion
  process of the pod with specified deletion label and ensure that the
  maxUnavailable limit is not exceeded. The pod will be re-built by the
  workload if the ordinal is not reserved."

  The maxUnavailable of the page is `rollingUpdate.maxUnavailable` (1 when
  unset), counted over all replicas as in "MaxUnavailable"; Kruise's source
  deletes a labelled pod only while fewer pods than that are unavailable,
  or when the pod is unavailable itself (clusters/targets/openkruise-facts.md,
  section 4). The label needs Kruise v1.7.2 or later ("FEATURE STATE:
  Kruise v1.5.5, Kruise v1.6.4, Kruise v1.7.2+").

  # cite: openkruise-advanced-statefulset | Specified Pod Deletion | "FEATURE STATE: Kruise v1.5.5, Kruise v1.6.4, Kruise v1.7.2+"
  # cite: openkruise-advanced-statefulset | Specified Pod Deletion | "Compared to manually deleting a Pod directly, pod deletion by labeling pod with apps.kruise.io/specified-delete: true will be protected by the maxUnavailable of the Advanced StatefulSet during deletion"
  # cite: openkruise-advanced-statefulset | Specified Pod Deletion | "When the controller receives the above Pod update, it will trigger the deletion process of the pod with specified deletion label and ensure that the maxUnavailable limit is not exceeded. The pod will be re-built by the workload if the ordinal is not reserved."

  Background:
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        podManagementPolicy: Parallel
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: kepspec.io/ready
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    When pods web-0, web-1, web-2, web-3 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready

  # covers: K8
  Scenario: a labelled pod is deleted and re-built at its ordinal
    When the label "apps.kruise.io/specified-delete" of pod "web-1" is set to "true"
    Then within 30 seconds pod "web-1" is terminating
    When pods web-1 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    And pod "web-3" was neither deleted nor replaced

  # covers: K8
  Scenario: a labelled pod waits while the budget is used by an unready pod
    When pod "web-3" is made not ready
    And the label "apps.kruise.io/specified-delete" of pod "web-1" is set to "true"
    Then for 5 seconds pod "web-1" is neither deleted nor replaced
    When pod "web-3" is made ready
    Then within 30 seconds pod "web-1" is terminating
    When pods web-1 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment did specified deletion leave more than 1 pod of "web" unavailable

  # covers: K8
  Scenario: two labelled pods are deleted one after the other, highest first
    When pod "web-0" is made not ready
    And the label "apps.kruise.io/specified-delete" of pod "web-1" is set to "true"
    And the label "apps.kruise.io/specified-delete" of pod "web-2" is set to "true"
    Then for 3 seconds pod "web-2" is neither deleted nor replaced
    When pod "web-0" is made ready
    Then within 30 seconds pod "web-2" is terminating
    When pods web-2 are made ready in turn as they appear at the update revision
    Then within 30 seconds pod "web-1" is terminating
    When pods web-1 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1
    And at no moment did specified deletion leave more than 1 pod of "web" unavailable
