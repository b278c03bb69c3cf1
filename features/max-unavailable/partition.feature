@kep-961 @max-unavailable @partition @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable together with a partition
  KEP-961, "API Changes": with a partition, "all Pods with an ordinal that is
  greater than or equal to the partition will be updated when the
  StatefulSet's .spec.template is updated"; in its example with partition 2,
  "Pods with ordinal 0 and 1 will remain untouched due the partition".
  StatefulSet concepts, "Maximum unavailable Pods": "If there is any
  unavailable Pod in the range 0 to replicas - 1, it will be counted towards
  maxUnavailable." The staged pods may be fewer than, as many as, or more than
  the budget, as in KEP-961, "Unit tests".

  Where sources disagree: KEP-961 says "If a partition is specified,
  maxUnavailable will only apply to all the pods which are staged by the
  partition", and its alpha code counts unavailable pods only among those. The
  spec follows the concepts page and the upstream code, which will "count
  unavailable pods over all of [0, replicas)" (upstream-statefulset-facts,
  "Reconcile order (one sync)"): an unavailable pod below the partition uses
  up the budget. KEP-961 also says "MaxUnavailable cannot be greater than
  replicas-partition"; upstream validation accepts larger values, so the spec
  treats a larger value as a clamp to the staged pods (2 staged pods with a
  budget of 3).

  # cite: kep-961 | API Changes | "Which means all Pods with an ordinal that is greater than or equal to the partition will be updated when the StatefulSet's .spec.template is updated."
  # cite: kep-961 | API Changes | "Pods with ordinal 0 and 1 will remain untouched due the partition."
  # cite: statefulset-concepts | Maximum unavailable Pods | "If there is any unavailable Pod in the range 0 to replicas - 1, it will be counted towards maxUnavailable."
  # cite: kep-961 | API Changes | "If a partition is specified, maxUnavailable will only apply to all the pods which are staged by the partition."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "count unavailable pods over all of [0, replicas)"
  # cite: kep-961 | API Changes | "If maxUnavailable is specified and partition is also specified, MaxUnavailable cannot be greater than replicas-partition"

  # covers: M5 M6 M17 M18 K15 K17
  Scenario Outline: <staged> staged pods with a budget of <budget>
    Given a StatefulSet "web" with 5 replicas, pod management policy "Parallel", partition "3" and max unavailable "<budget>"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-3" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-4" of "web" runs the update revision and is ready
    And at no moment were more than <budget> pods of "web" unavailable
    And at some moment <peak> pods of "web" were unavailable at once
    And pods of "web" below ordinal 3 were neither deleted nor replaced

    Examples:
      | staged | budget | peak |
      | 2      | 1      | 1    |
      | 2      | 2      | 2    |
      | 2      | 3      | 2    |

  # covers: M7 C37
  Scenario: an unavailable pod below the partition uses up the budget
    Given a StatefulSet "web" with 5 replicas, pod management policy "Parallel", partition "3", max unavailable "2" and readiness held by the readiness gate
    When pods web-0, web-1, web-2, web-3, web-4 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    When pod "web-0" is made not ready
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 1 pod of "web" exists at the update revision
    And for 3 seconds no further pod of the update revision of "web" is created
    When pods web-4, web-3 are made ready in turn as they appear at the update revision
    Then at no moment were more than 2 pods of "web" unavailable
    And pods of "web" below ordinal 3 were neither deleted nor replaced
