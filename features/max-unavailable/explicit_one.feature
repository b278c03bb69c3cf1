@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet
Feature: An explicit maxUnavailable of 1 behaves as the default
  KEP-961, "Unit tests": "maxUnavailable =1, Same behavior as today with
  PodManagementPolicy as OrderedReady or Parallel". Today's behaviour is
  StatefulSet concepts, "Rolling Updates": "It will proceed in the same order as Pod
  termination (from the largest ordinal to the smallest), updating each Pod
  one at a time." default_one_at_a_time.feature checks a set that leaves the
  field unset; here the set states maxUnavailable 1 itself, and the stored
  value is checked.

  # cite: kep-961 | Unit tests | "maxUnavailable =1, Same behavior as today with PodManagementPolicy as OrderedReady or Parallel"
  # cite: statefulset-concepts | Rolling Updates | "It will proceed in the same order as Pod termination (from the largest ordinal to the smallest), updating each Pod one at a time."

  # covers: M14
  Scenario Outline: maxUnavailable 1 under <policy> replaces one pod at a time, highest ordinal first
    # rejects: a controller that takes down one pod more than an explicit maxUnavailable allows, or that, once the field is set, replaces pods in another order than highest ordinal first (as a Parallel budget that picks any pod would)
    Given a StatefulSet "web" with 3 replicas, pod management policy "<policy>", max unavailable "1" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" set to "1"
    And at no moment were more than 1 pod of "web" unavailable
    And pods were deleted in the order web-2, web-1, web-0

    Examples:
      | policy       |
      | OrderedReady |
      | Parallel     |
