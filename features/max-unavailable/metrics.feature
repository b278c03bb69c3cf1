@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet @metrics
Feature: The controller reports the budget and the unavailable replicas as metrics
  KEP-961, "Metrics": "We'll add two new metrics": statefulset_max_unavailable,
  which "tracks the current" maxUnavailable of the set, and
  statefulset_unavailable_replicas, which "tracks the current number of
  unavailable pods in a StatefulSet. This gauge reflects the real-time count
  of pods that are either missing or unavailable". Its Beta criteria list
  both, added as "metrics to in-tree."

  Where sources disagree on the name: upstream registers both gauges under
  the subsystem statefulset_controller (pkg/controller/statefulset/metrics/metrics.go),
  so kube-controller-manager serves statefulset_controller_statefulset_max_unavailable,
  labelled statefulset_namespace and statefulset_name. The steps find a
  gauge under the KEP's name or under any prefix of it, and a set under
  upstream's labels or plain namespace and statefulset labels.

  Only scenarios whose controller's metrics kepspec can read run: the bundled
  controller in-process; on other targets they are skipped with that reason.

  # cite: kep-961-max-unavailable.md | Metrics | "We'll add two new metrics"
  # cite: kep-961-max-unavailable.md | Metrics | "tracks the current"
  # cite: kep-961-max-unavailable.md | Metrics | "tracks the current number of unavailable pods in a StatefulSet. This gauge reflects the real-time count of pods that are either missing or unavailable"
  # cite: kep-961-max-unavailable.md | Beta | "metrics to in-tree."

  # covers: M12
  Scenario: the budget in force, scaled from a percentage, and no unavailable replica once settled
    Given a StatefulSet "web" with 4 replicas and max unavailable "50%"
    And all pods of "web" are running and ready
    Then within 10 seconds the controller reports "statefulset_max_unavailable" of "web" as 2
    And within 10 seconds the controller reports "statefulset_unavailable_replicas" of "web" as 0

  # covers: M12
  Scenario: a missing replica counts as unavailable
    Given a StatefulSet "web" with 2 replicas, max unavailable "1" and readiness held by the readiness gate
    Then within 30 seconds 1 pod of "web" exists at the update revision
    When pod "web-0" is made ready
    Then within 30 seconds 2 pods of "web" exist at the update revision
    And within 10 seconds the controller reports "statefulset_unavailable_replicas" of "web" as 1
    When "web" is scaled to 4 replicas
    Then within 10 seconds the controller reports "statefulset_unavailable_replicas" of "web" as 3
