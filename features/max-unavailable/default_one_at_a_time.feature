@kep-961 @max-unavailable
Feature: Without maxUnavailable, a rolling update replaces one pod at a time
  KEP-961, "Proposal": "When the field is not specified, it will default to 1
  to maintain previous behavior of rolling one pod at a time." StatefulSet
  concepts, "Rolling Updates": "the StatefulSet controller will delete and
  recreate each Pod in the StatefulSet. It will proceed in the same order as
  Pod termination (from the largest ordinal to the smallest), updating each
  Pod one at a time." This holds under both pod management policies; "Parallel
  Pod Management": "This option only affects the behavior for scaling
  operations. Updates are not affected."

  Where sources disagree: KEP-3541, "Current Behavior and Problems", says that
  with Parallel a RollingUpdate will "Update all pods simultaneously (or up to
  maxUnavailable at a time if specified)". The spec follows the concepts page
  and KEP-961, "Unit tests" ("maxUnavailable =1, Same behavior as today with
  PodManagementPolicy as OrderedReady or Parallel"): without maxUnavailable,
  Parallel too updates one pod at a time.

  # cite: kep-961 | Proposal | "When the field is not specified, it will default to 1 to maintain previous behavior of rolling one pod at a time."
  # cite: statefulset-concepts | Rolling Updates | "the StatefulSet controller will delete and recreate each Pod in the StatefulSet. It will proceed in the same order as Pod termination (from the largest ordinal to the smallest), updating each Pod one at a time."
  # cite: statefulset-concepts | Parallel Pod Management | "This option only affects the behavior for scaling operations. Updates are not affected."
  # cite: kep-3541 | Current Behavior and Problems | "Update all pods simultaneously (or up to maxUnavailable at a time if specified)"
  # cite: kep-961 | Unit tests | "maxUnavailable =1, Same behavior as today with PodManagementPolicy as OrderedReady or Parallel"

  # covers: M2 C22 C36
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
