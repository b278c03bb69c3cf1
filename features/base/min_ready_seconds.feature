@base @min-ready-seconds
Feature: availableReplicas follows minReadySeconds as it changes
  StatefulSet concepts, "Minimum ready seconds": ".spec.minReadySeconds is an
  optional field that specifies the minimum number of seconds for which a
  newly created Pod should be ready without any of its containers crashing,
  for it to be considered available." upstream-statefulset-facts, "Status":
  "availableReplicas: ready for minReadySeconds". The field may change on a
  running set (upstream's update validation lists it among the mutable
  fields), and the count follows at once: upstream's e2e test
  `AvailableReplicas should get updated accordingly when MinReadySeconds is
  enabled` raises it on a settled set to an hour, expecting no available
  replica, then sets it to 0, expecting every replica available again. Here
  the first value is 2 seconds instead of upstream's 30.

  # cite: statefulset-concepts | Minimum ready seconds | ".spec.minReadySeconds is an optional field that specifies the minimum number of seconds for which a newly created Pod should be ready without any of its containers crashing, for it to be considered available."
  # cite: upstream-statefulset-facts | Status | "availableReplicas: ready for minReadySeconds"

  # covers: E24
  Scenario: raising minReadySeconds to an hour makes every replica unavailable, and 0 makes them available again
    # rejects: a controller that reads minReadySeconds only when a pod turns ready, or ignores it, so availableReplicas does not follow the field
    Given a StatefulSet "web" with 2 replicas and min ready seconds "2"
    And all pods of "web" are running and ready
    Then within 30 seconds the status of "web" reports 2 available replicas
    When "web" is changed with this merge patch:
      """
      spec:
        minReadySeconds: 3600
      """
    Then within 30 seconds the status of "web" reports 0 available replicas
    When "web" is changed with this merge patch:
      """
      spec:
        minReadySeconds: 0
      """
    Then within 30 seconds the status of "web" reports 2 available replicas

  # covers: I4
  Scenario: a pod whose Ready condition turned true longer ago than minReadySeconds counts as available at once
    # rejects: a controller that measures readiness from when it first saw a pod ready, not from the Ready condition's lastTransitionTime
    Upstream's integration test TestStatefulSetAvailable writes pod status
    with Ready transitions two hours in the past under a minReadySeconds of
    an hour and expects those pods available at once.
    Given a StatefulSet "web" with 3 replicas, pod management policy "Parallel" and min ready seconds "3600"
    Then within 30 seconds the status of "web" reports 3 replicas, 3 of them ready
    And within 10 seconds the status of "web" reports 0 available replicas
    When the Ready condition of pod "web-0" is backdated by 7200 seconds
    And the Ready condition of pod "web-2" is backdated by 7200 seconds
    Then within 30 seconds the status of "web" reports 2 available replicas
