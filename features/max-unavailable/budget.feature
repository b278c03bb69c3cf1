@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable bounds how many pods a rolling update takes down at once
  KEP-961, "API Changes": the field is "The maximum number of pods that can be
  unavailable during the update." "Value can be an absolute number (ex: 5) or
  a percentage of desired pods (ex: 10%)." "Absolute number is calculated from
  percentage by rounding down." "Defaults to 1." With OrderedReady the
  controller works in batches, highest ordinals first, and with Parallel it
  keeps the whole budget in use ("Implementation": "For PMP=Parallel, we will
  use Choice 2", and for OrderedReady "for simplicity Choice 1 was implemented
  instead"). Unavailable pods count wherever they are in [0, replicas)
  (StatefulSet concepts, "Maximum unavailable Pods").

  Where sources disagree: the concepts page, "Maximum unavailable Pods", says
  "Absolute number is calculated from the percentage value by rounding it up."
  The spec follows KEP-961 and the upstream code, where "maxUnavailable is
  scaled from a percentage rounding DOWN with a floor of 1"
  (upstream-statefulset-facts, "Reconcile order (one sync)"): 50% of 5
  replicas is 2, not 3. KEP-961 also says maxUnavailable "cannot be greater
  than total number of replicas"; upstream validation accepts larger values
  (upstream-statefulset-facts, "Validation (apiserver)"), so the spec treats a
  larger value as a clamp to the replica count. KEP-3541 ("Why Existing
  Solutions Are Insufficient") says that with OrderedReady "updates happen one
  pod at a time in reverse ordinal order", even with maxUnavailable; the spec
  follows KEP-961, whose Choice 1 updates in batches.

  # cite: kep-961 | API Changes | "The maximum number of pods that can be unavailable during the update. ... Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). ... Absolute number is calculated from percentage by rounding down. ... Defaults to 1."
  # cite: kep-961 | Implementation | "For PMP=Parallel, we will use Choice 2."
  # cite: kep-961 | Implementation | "for simplicity Choice 1 was implemented instead"
  # cite: statefulset-concepts | Maximum unavailable Pods | "Absolute number is calculated from the percentage value by rounding it up."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "maxUnavailable is scaled from a percentage rounding DOWN with a floor of 1"
  # cite: kep-961 | API Changes | "If maxUnavailable is specified, it cannot be greater than total number of replicas."
  # cite: kep-3541 | Why Existing Solutions Are Insufficient | "With podManagementPolicy: OrderedReady, updates happen one pod at a time in reverse ordinal order."

  # covers: M1 M9 M10 M15 M22 M23 M40 E9
  Scenario: OrderedReady with maxUnavailable 2 works in batches, highest ordinals first
    Given a StatefulSet "web" with 5 replicas, pod management policy "OrderedReady" and max unavailable "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And at some moment 2 pods of "web" were unavailable at once
    And pods were deleted in the order web-4, web-3, web-2, web-1, web-0
    And no pod of "web" was terminated out of order

  # covers: M8 M15 M22 M23 M40 K15 K17
  Scenario: Parallel uses the budget continuously and never exceeds it
    Given a StatefulSet "web" with 5 replicas, pod management policy "Parallel", max unavailable "3" and readiness held by the readiness gate
    When pods web-0, web-1, web-2, web-3, web-4 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    When the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When pod "web-4" is made ready
    Then within 30 seconds 4 pods of "web" exist at the update revision
    When pods web-3, web-2, web-1, web-0 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 5 pods of "web" run the update revision and are ready
    And at no moment were more than 3 pods of "web" unavailable
    And at some moment 3 pods of "web" were unavailable at once
    And a pod of "web" was deleted while an earlier replacement was still unavailable

  # covers: M1 M3 M42
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

  # covers: M4 M16
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
