@kep-961 @since-v1.35 @skew @isolated @embedded-only
Feature: maxUnavailable when a component has the gate off
  KEP-961, "Version Skew Strategy": "If only api-server has a version where
  the feature is enabled, because statefulset controller is unaware of this
  feature, then we'll fall into the default rolling-update behavior, one pod
  at a time." "Downgrade": "If we try to set this field, it will be silently
  dropped." "If the object with this field already exists, we maintain is as
  it is". upstream-statefulset-facts, "Validation (apiserver)": "With the gate
  off on the apiserver, a new maxUnavailable is silently dropped (kept if
  already stored)." With its gate off the controller runs the rolling update
  of before KEP-961, where, upstream-statefulset-facts, "Reconcile order (one
  sync)": "an unavailable pod makes it wait", a pod being available once it
  has been ready for minReadySeconds. That walk goes "from the highest
  ordinal down to the partition", so a pod below the partition is never on
  it: unready, it holds nothing back, where KEP-961's budget counts
  "unavailable pods over all of [0, replicas)".

  Where sources disagree: KEP-961's production readiness answer on failed
  rollouts says instead that "Attempts to use maxUnavailable in StatefulSet
  specifications will be rejected by the API server"; the spec follows
  "Downgrade" and upstream: a new value is dropped, not refused. For a value
  already stored, "Downgrade" says "the field gets ignored by apiserver, and
  controller behaves as if the field is not set", while the answer on
  re-enabling says "So if it is set it continues to exist and is enforced";
  the spec expects the value to be kept (upstream) and, where only the
  apiserver's gate is off and the controller's is on, used: at some moment
  that many pods are unavailable at once ("continues to exist and is
  enforced"), never more. Here the spec follows upstream against the words
  of "Downgrade": upstream's controller reads a stored maxUnavailable under
  its own gate alone (upstream-statefulset-facts: "kept if already stored",
  and the controller applies the budget whenever its gate is on), so with
  only the apiserver's gate off the stored value is enforced. A controller
  that, as "Downgrade" reads literally, behaves as if the field were not set
  (one pod at a time) fails the third scenario's last step (3 pods at once).
  Such a target declares deviation max-unavailable-ignored-by-apiserver (the
  kep-literal target does, taking "ignored by apiserver" as the apiserver
  dropping the field from the next write), and the scenario tagged with it
  checks that reading. With the controller's gate off too, both readings
  agree, which the first scenario checks.

  # cite: kep-961 | Version Skew Strategy | "If only api-server has a version where the feature is enabled, because statefulset controller is unaware of this feature, then we'll fall into the default rolling-update behavior, one pod at a time."
  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "If we try to set this field, it will be silently dropped."
  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "If the object with this field already exists, we maintain is as it is, but the controller will just ignore this field."
  # cite: upstream-statefulset-facts | Validation (apiserver) | "With the gate off on the apiserver, a new maxUnavailable is silently dropped (kept if already stored)."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "an unavailable pod makes it wait"
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "from the highest ordinal down to the partition"
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "unavailable pods over all of [0, replicas)"
  # cite: kep-961 | How can a rollout or rollback fail? Can it impact already running workloads? | "Attempts to use maxUnavailable in StatefulSet specifications will be rejected by the API server."
  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "the field gets ignored by apiserver, and controller behaves as if the field is not set"
  # cite: kep-961 | What happens if we reenable the feature if it was previously rolled back? | "So if it is set it continues to exist and is enforced."

  # covers: M30 M34
  Scenario: controller gate off: maxUnavailable 3 behaves as 1
    Given the controller runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  # covers: M30
  @slow
  Scenario: controller gate off: the rolling update of before KEP-961 waits for each new pod to be available
    # rejects: a controller whose gate-off rolling update deletes the next pod as soon as the last one is Ready, before minReadySeconds have passed
    Given the controller runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 3 replicas, min ready seconds "3" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced one at a time, highest ordinal first
    And at no moment were more than 1 pod of "web" unavailable

  # covers: M30
  Scenario: controller gate off: an unready pod below the partition holds back no replacement above it
    # rejects: a controller whose gate-off rolling update is KEP-961's budget path with a budget of 1: it counts web-0, unready below the partition, against that budget and replaces nothing
    # rejects: a controller whose gate-off rolling update walks past the partition and replaces web-0 too, once web-1 is available
    # rejects: a controller whose gate-off rolling update of a Parallel set replaces web-2 and web-1 at once, with web-0 already unavailable
    Given the controller runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 3 replicas, pod management policy "Parallel", partition "1" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 30 seconds all 3 pods of "web" run the update revision and are ready
    When pod "web-0" is made not ready
    Then within 30 seconds pod "web-0" of "web" is not ready and the controller has seen it
    When the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-2" is terminating
    When pods web-2, web-1 are made ready in turn as they appear at the update revision
    Then within 30 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-2" of "web" runs the update revision
    And for 2 seconds no pod of "web" is created or deleted
    And pods of "web" below ordinal 1 were neither deleted nor replaced
    And pod "web-0" of "web" runs the current revision
    And pods were deleted in the order web-2, web-1
    And at no moment were more than 2 pods of "web" unavailable

  # covers: M29 M35 M44
  Scenario: apiserver gate off: a new maxUnavailable is dropped
    Given the apiserver runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    Then the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" unset
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  # covers: M31 M42
  @deviates-max-unavailable-ignored-by-apiserver
  Scenario: a stored maxUnavailable survives the apiserver gate going off
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" off
    And the environment variable "VERSION" of "web" is set to "2"
    Then the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" set to "3"
    And within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 3 pods of "web" unavailable
    And at some moment 3 pods of "web" were unavailable at once

  @deviation-max-unavailable-ignored-by-apiserver
  Scenario: a target whose apiserver ignores a stored maxUnavailable once its gate is off replaces one pod at a time
    # rejects: an apiserver that keeps the field while claiming this reading, or a controller that still takes 3 pods down
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" off
    And the environment variable "VERSION" of "web" is set to "2"
    Then the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" unset
    And within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable
