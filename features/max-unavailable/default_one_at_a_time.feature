@kep-961 @max-unavailable
Feature: Without maxUnavailable, a rolling update replaces one pod at a time
  KEP-961, "Proposal": maxUnavailable "defaults to 1", which is the
  behaviour of a RollingUpdate before the KEP. StatefulSet concepts, "Rolling
  Updates": "The StatefulSet controller will delete and recreate each Pod in
  the StatefulSet. It will proceed in the same order as Pod termination (from
  the largest ordinal to the smallest), updating each Pod one at a time."

  Scenario Outline: one at a time, highest ordinal first, under <policy>
    Given a StatefulSet "web" with 3 replicas and pod management policy "<policy>"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable
    And pods were deleted in the order web-2, web-1, web-0

    Examples:
      | policy       |
      | OrderedReady |
      | Parallel     |
