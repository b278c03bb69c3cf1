@kep-961 @max-unavailable @partition @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable above 1 with a partition: more staged pods than the budget, and a budget above the replicas
  KEP-961, "Unit tests", lists "maxUnavailable greater than 1 with partition
  and staged pods greater than maxUnavailable" and "maxUnavailable greater
  than 1 with partition and maxUnavailable greater than replicas", and "Each
  of these Tests can be run in PodManagementPolicy = OrderedReady or Parallel
  and the Update should happen at most maxUnavailable Pods at a time".
  "API Changes": with a partition, "all Pods with an ordinal that is greater
  than or equal to the partition will be updated when the StatefulSet's
  .spec.template is updated", and the others "will remain untouched due the
  partition".

  Where sources disagree: KEP-961 says "If maxUnavailable is specified, it
  cannot be greater than total number of replicas."; upstream validation
  accepts larger values (upstream-statefulset-facts, "Validation
  (apiserver)": "maxUnavailable a positive int or a percentage <= 100%"), so,
  as in partition.feature, the spec treats a larger value as a clamp to the
  staged pods: a budget of 7 for 2 staged pods takes both at once.

  # cite: kep-961 | Unit tests | "maxUnavailable greater than 1 with partition and staged pods greater than maxUnavailable"
  # cite: kep-961 | Unit tests | "maxUnavailable greater than 1 with partition and maxUnavailable greater than replicas"
  # cite: kep-961 | Unit tests | "Each of these Tests can be run in PodManagementPolicy = OrderedReady or Parallel and the Update should happen at most maxUnavailable Pods at a time"
  # cite: kep-961 | API Changes | "all Pods with an ordinal that is greater than or equal to the partition will be updated when the StatefulSet's .spec.template is updated"
  # cite: kep-961 | API Changes | "will remain untouched due the partition"
  # cite: kep-961 | API Changes | "If maxUnavailable is specified, it cannot be greater than total number of replicas."
  # cite: upstream-statefulset-facts | Validation (apiserver) | "maxUnavailable a positive int or a percentage <= 100%"

  # covers: M19
  Scenario Outline: four staged pods with a budget of 2 under <policy>
    # rejects: a controller that takes one staged pod at a time once more pods are staged than the budget (never using a budget above 1 with a partition), one that takes more than 2 staged pods at once, and one that touches web-0 below the partition
    Given a StatefulSet "web" with 5 replicas, pod management policy "<policy>", partition "1", max unavailable "2" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds pod "web-1" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-3" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-4" of "web" runs the update revision and is ready
    And at no moment were more than 2 pods of "web" unavailable
    And at some moment 2 pods of "web" were unavailable at once
    And pods were deleted in the order web-4, web-3, web-2, web-1
    And pods of "web" below ordinal 1 were neither deleted nor replaced

    Examples:
      | policy       |
      | OrderedReady |
      | Parallel     |

  # covers: M20
  Scenario Outline: a budget of 7 for 5 replicas with partition 3 under <policy>
    # rejects: a controller that falls back to one pod at a time (or refuses to act) when maxUnavailable exceeds the replica count, and one that clamps the budget to the replicas and then updates below the partition
    Given a StatefulSet "web" with 5 replicas, pod management policy "<policy>", partition "3", max unavailable "7" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-3" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-4" of "web" runs the update revision and is ready
    And at some moment 2 pods of "web" were unavailable at once
    And at no moment were more than 2 pods of "web" unavailable
    And pods of "web" below ordinal 3 were neither deleted nor replaced

    Examples:
      | policy       |
      | OrderedReady |
      | Parallel     |

  # KEP-961, "API Changes": a percentage is "a percentage of desired pods",
  # so with a partition it is still taken of the replicas, not of the pods
  # the partition stages.
  # covers: M1
  Scenario: a percentage with a partition is taken of the desired pods: 40% of 10 with partition 5 is 4
    # rejects: a controller that takes the percentage of the staged pods (40% of 5 is 2), and one that takes more than 4 at once
    Given a StatefulSet "web" with 10 replicas, pod management policy "Parallel", partition "5", max unavailable "40%" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds 5 pods of "web" exist at the update revision
    And within 60 seconds pod "web-5" of "web" runs the update revision and is ready
    And at no moment were more than 4 pods of "web" unavailable
    And at some moment 4 pods of "web" were unavailable at once
    And pods of "web" below ordinal 5 were neither deleted nor replaced

