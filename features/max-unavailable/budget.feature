@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable bounds how many pods a rolling update takes down at once
  KEP-961, "Proposal": "maxUnavailable ... the maximum number of pods that can
  be unavailable during the update. Value can be an absolute number or a
  percentage of desired pods ... Absolute number is calculated from
  percentage by rounding down ... defaults to 1." With OrderedReady the
  controller works in batches, highest ordinals first; with Parallel it uses
  the budget continuously. Unavailable is counted over every ordinal in
  [0, replicas).

  Scenario: OrderedReady with maxUnavailable 2 works in batches, highest ordinals first
    Given a StatefulSet "web" with 5 replicas, pod management policy "OrderedReady" and max unavailable "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And at some moment 2 pods of "web" were unavailable at once
    And pods were deleted in the order web-4, web-3, web-2, web-1, web-0

  Scenario: Parallel uses the budget continuously and never exceeds it
    Given a StatefulSet "web" with 5 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    And at no moment were more than 3 pods of "web" unavailable
    And at some moment 3 pods of "web" were unavailable at once

  Scenario Outline: a percentage of <replicas> replicas rounds down to <budget>, with a floor of 1
    Given a StatefulSet "web" with <replicas> replicas, pod management policy "Parallel" and max unavailable "<percent>"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all <replicas> pods of "web" run the update revision and are ready
    And at no moment were more than <budget> pods of "web" unavailable
    And at some moment <budget> pods of "web" were unavailable at once

    Examples:
      | replicas | percent | budget |
      | 5        | 50%     | 2      |
      | 5        | 10%     | 1      |
      | 4        | 100%    | 4      |

  Scenario: a budget larger than the replica count takes every pod at once
    Given a StatefulSet "web" with 3 replicas, pod management policy "Parallel" and max unavailable "5"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And at some moment 3 pods of "web" were unavailable at once

  Scenario: a new maxUnavailable starts no rollout and bounds the next one
    Given a StatefulSet "web" with 4 replicas and pod management policy "Parallel"
    And all pods of "web" are running and ready
    When the max unavailable of "web" is set to "2"
    Then for 2 seconds no pod of "web" is created or deleted
    When the annotation "example.com/version" of the pods of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And at some moment 2 pods of "web" were unavailable at once
