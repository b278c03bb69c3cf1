@kep-961 @max-unavailable @partition @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable together with a partition
  KEP-961, "Implementation Details": the pods to update are those with an
  ordinal at or above the partition; "pods below the partition ... will not
  be updated", and unavailable pods anywhere in [0, replicas) count toward
  the budget. The staged pods may be fewer than, as many as, or more than
  the budget.

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
