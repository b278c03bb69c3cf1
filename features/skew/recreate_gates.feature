@kep-3541 @since-v1.37 @skew @isolated @embedded-only
Feature: Recreate when the apiserver and the controller disagree about the gate
  KEP-3541, "Upgrade / Downgrade Strategy": the gate
  StatefulSetRecreateStrategy "must be enabled on both kube-apiserver and
  kube-controller-manager". "Partial Upgrade Behavior": "If apiserver has
  feature enabled but kube-controller-manager does not: ...
  Kube-controller-manager ignores Recreate type and falls back to default
  RollingUpdate behavior ... No errors, but Recreate behavior is not active";
  "If apiserver does NOT have feature enabled ... API server rejects
  create/update requests that set type: Recreate with a validation error".
  "Downgrade": "The controller in the older version ignores Recreate and
  behaves as RollingUpdate for those existing objects". Each scenario runs on
  a cluster of its own so its components can be restarted with other gates.

  For a mixed control plane, "Version Skew Strategy": "If leader has feature
  enabled: Recreate strategy is processed correctly"; "If leader has feature
  disabled: Recreate strategy is ignored, falls back to RollingUpdate
  behavior"; "Leader may change during upgrade, causing behavior to switch
  between Recreate and RollingUpdate".
  Turning the gates on again, "What happens if we reenable the feature if it
  was previously rolled back?": "StatefulSets with type: Recreate in their
  spec will immediately start using Recreate behavior for the next update."

  Where sources disagree: "Downgrade" says that StatefulSets with type:
  Recreate stored "remain stored, but any update that touches the spec may be
  rejected unless the strategy is changed back to RollingUpdate/OnDelete
  first". The KEP's "may" permits either answer; the spec follows upstream,
  whose apiserver ratchets: upstream's strategy tests for PR #137187
  (pkg/registry/apps/statefulset/strategy_test.go,
  `TestStatefulSetStrategy_RecreateStrategy_ValidateUpdate`, case `Recreate to
  Recreate, RecreateFG off - allowed`, read in an indexed copy; calibration-facts
  notes the same file) accept an update of a stored Recreate set with the
  gate off, since the validation of the strategy looks only at whether the
  stored object already had it. An apiserver that rejects such an update
  instead follows the KEP's other reading: it declares deviation
  downgrade-refuses-spec-changes (the kep-literal target does), which
  replaces the scenarios that change the spec of a stored Recreate set with
  both gates off by the one tagged with it. For the skew,
  "Version Skew Strategy" promises "No errors or warnings", while
  calibration-facts reports that the upstream code under review builds an
  error and discusses an event; the spec follows the KEP (fallback, no Warning
  event), and the upstream target declares the difference (deviation
  controller-gate-off-no-fallback, checked by the scenario with the tag of
  that name). For a refused Recreate,
  upstream-statefulset-facts, "Validation (apiserver)" quotes a NotSupported
  error at spec.updateStrategy.type, while calibration-facts reports that
  upstream's strategy tests expect a field.Invalid at spec.updateStrategy
  (the default branch of ValidateStatefulSetSpec, which the embedded
  apiserver follows); the KEP asks only for "a validation error", so the spec
  checks a 422 naming spec.updateStrategy. KEP-3541's test plan forbids
  switching away from Recreate in alpha; the spec switches back only with both
  gates off, as "Downgrade" presupposes.

  # cite: kep-3541 | Upgrade / Downgrade Strategy > Upgrade | "This feature is protected by the feature-gate StatefulSetRecreateStrategy, which must be enabled on both kube-apiserver and kube-controller-manager."
  # cite: kep-3541 | Partial Upgrade Behavior | "If apiserver has feature enabled but kube-controller-manager does not: ... Kube-controller-manager ignores Recreate type and falls back to default RollingUpdate behavior ... No errors, but Recreate behavior is not active"
  # cite: kep-3541 | Partial Upgrade Behavior | "If apiserver does NOT have feature enabled ... API server rejects create/update requests that set type: Recreate with a validation error"
  # cite: kep-3541 | Downgrade | "The controller in the older version ignores Recreate and behaves as RollingUpdate for those existing objects"
  # cite: kep-3541 | Downgrade | "StatefulSets that already have type: Recreate stored in etcd remain stored, but any update that touches the spec may be rejected unless the strategy is changed back to RollingUpdate/OnDelete first"
  # cite: kep-3541 | Version Skew Strategy | "StatefulSets are functional, just without Recreate strategy feature ... No errors or warnings"
  # cite: kep-3541 | Version Skew Strategy | "If leader has feature enabled: Recreate strategy is processed correctly"
  # cite: kep-3541 | Version Skew Strategy | "If leader has feature disabled: Recreate strategy is ignored, falls back to RollingUpdate behavior"
  # cite: kep-3541 | Version Skew Strategy | "Leader may change during upgrade, causing behavior to switch between Recreate and RollingUpdate"
  # cite: kep-3541 | What happens if we reenable the feature if it was previously rolled back? | "StatefulSets with type: Recreate in their spec will immediately start using Recreate behavior for the next update."

  # covers: R36
  @deviates-controller-gate-off-no-fallback
  Scenario: apiserver gate on, controller gate off: Recreate behaves as RollingUpdate
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" off
    And a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And at no moment were more than 1 pod of "web" unavailable
    And the event "RecreateStarted" was recorded for "web" exactly 0 times
    And no Warning event was recorded for "web"

  # covers: R37
  Scenario: apiserver gate off: creating a Recreate StatefulSet is rejected
    Given the apiserver runs with feature gate "StatefulSetRecreateStrategy" off
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 1
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: Recreate
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy"

  # covers: R38
  Scenario: apiserver gate off: switching to Recreate is rejected and the set keeps working
    Given the apiserver runs with feature gate "StatefulSetRecreateStrategy" off
    And a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When an attempt is made to change the update strategy of "web" to "Recreate"
    Then the request is refused with code 422 and a message containing "spec.updateStrategy"
    And the StatefulSet "web" has "/spec/updateStrategy/type" set to "RollingUpdate"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-1, web-0

  # covers: R39 R40 R41 R45
  @deviates-controller-gate-off-no-fallback @deviates-downgrade-refuses-spec-changes
  Scenario: downgrade: a stored Recreate StatefulSet after both gates go off
    Given a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "StatefulSetRecreateStrategy" off
    And the controller restarts with feature gate "StatefulSetRecreateStrategy" off
    And the environment variable "VERSION" of "web" is set to "2"
    Then the StatefulSet "web" has "/spec/updateStrategy/type" set to "Recreate"
    And within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And at no moment were more than 1 pod of "web" unavailable
    When the update strategy of "web" is changed to "RollingUpdate"
    Then the StatefulSet "web" has "/spec/updateStrategy/type" set to "RollingUpdate"

  # "Mixed control plane during rolling upgrade": the leader's gate decides.
  # A finalizer holds one old pod, so what each leader does is visible:
  # Recreate creates nothing while an old-revision pod exists, RollingUpdate
  # replaces pods one ordinal at a time and does not wait for the others.
  # Which revisions coexist after a switch is not promised either way.
  # covers: R42
  @deviates-controller-gate-off-no-fallback
  Scenario: the leader changes from a gate-on to a gate-off controller in the middle of a Recreate
    Given a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    And within 10 seconds controller replica "controller-1" leads
    And a second controller replica "controller-2" runs with feature gate "StatefulSetRecreateStrategy" off
    And pod "web-2" has the finalizer "kepspec.io/hold"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-2" is terminating
    And for 3 seconds no further pod of the update revision of "web" is created
    When the leading controller replica stops
    Then within 10 seconds controller replica "controller-2" leads
    And within 30 seconds pod "web-0" of "web" runs the update revision and is ready
    When the finalizer "kepspec.io/hold" is removed from pod "web-2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

  # covers: R42
  @deviates-controller-gate-off-no-fallback @slow
  Scenario: the leader changes from a gate-off to a gate-on controller in the middle of a rolling update
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" off
    And a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    And within 10 seconds controller replica "controller-1" leads
    And a second controller replica "controller-2" runs with feature gate "StatefulSetRecreateStrategy" on
    And pod "web-1" has the finalizer "kepspec.io/hold"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And within 30 seconds pod "web-1" is terminating
    And for 3 seconds pod "web-0" is neither deleted nor replaced
    When the leading controller replica stops
    Then within 10 seconds controller replica "controller-2" leads
    And within 30 seconds pod "web-0" is terminating
    And for 3 seconds pod "web-2" is neither deleted nor replaced
    When the finalizer "kepspec.io/hold" is removed from pod "web-1"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready

  @deviation-controller-gate-off-no-fallback
  Scenario: apiserver gate on, controller gate off: a controller that does not fall back leaves a Recreate StatefulSet alone
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" off
    When a StatefulSet "web" with 2 replicas and update strategy "Recreate" is submitted
    Then the request is accepted
    And for 5 seconds no pod of "web" is created or deleted

  # covers: R43 R44 R45
  @deviates-controller-gate-off-no-fallback @deviates-downgrade-refuses-spec-changes
  Scenario: upgrade, downgrade and upgrade again: each update follows the gates of its time
    Given a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    When the apiserver restarts with feature gate "StatefulSetRecreateStrategy" off
    And the controller restarts with feature gate "StatefulSetRecreateStrategy" off
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced one at a time, highest ordinal first
    When the apiserver restarts with feature gate "StatefulSetRecreateStrategy" on
    And the controller restarts with feature gate "StatefulSetRecreateStrategy" on
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "4"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

  @deviation-downgrade-refuses-spec-changes
  Scenario: downgrade, read literally: a spec change of a stored Recreate set is refused until the strategy is changed back
    # rejects: an apiserver that refuses the switch back too, or one that refuses writes that leave the spec alone; a controller that does not roll out the change made after the switch
    Given a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "StatefulSetRecreateStrategy" off
    And the controller restarts with feature gate "StatefulSetRecreateStrategy" off
    And an attempt is made to change "web" with this merge patch:
      """
      {"spec": {"template": {"metadata": {"annotations": {"example.com/version": "2"}}}}}
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy"
    When the update strategy of "web" is changed to "RollingUpdate"
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And at no moment were more than 1 pod of "web" unavailable
