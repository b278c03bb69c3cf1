@kep-3541 @skew @isolated @embedded-only
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

  Where sources disagree: "Downgrade" says that StatefulSets with type:
  Recreate stored "remain stored, but any update that touches the spec may be
  rejected unless the strategy is changed back to RollingUpdate/OnDelete
  first". The spec encodes what the embedded apiserver does, which ratchets: a
  stored Recreate is kept and other spec updates are accepted. For the skew,
  "Version Skew Strategy" promises "No errors or warnings", while
  calibration-facts reports that the upstream code under review builds an
  error and discusses an event; the spec follows the KEP and expects no
  Warning event. For a refused Recreate, the spec expects the message shape of
  upstream-statefulset-facts, "Validation (apiserver)"; calibration-facts
  notes that upstream's strategy tests expect a field.Invalid at
  spec.updateStrategy instead (unconfirmed). KEP-3541's test plan forbids
  switching away from Recreate in alpha; the spec switches back only with both
  gates off, as "Downgrade" presupposes.

  # cite: kep-3541-recreate-strategy.txt | Upgrade / Downgrade Strategy > Upgrade | "This feature is protected by the feature-gate StatefulSetRecreateStrategy, which must be enabled on both kube-apiserver and kube-controller-manager."
  # cite: kep-3541-recreate-strategy.txt | Partial Upgrade Behavior | "If apiserver has feature enabled but kube-controller-manager does not: ... Kube-controller-manager ignores Recreate type and falls back to default RollingUpdate behavior ... No errors, but Recreate behavior is not active"
  # cite: kep-3541-recreate-strategy.txt | Partial Upgrade Behavior | "If apiserver does NOT have feature enabled ... API server rejects create/update requests that set type: Recreate with a validation error"
  # cite: kep-3541-recreate-strategy.txt | Downgrade | "The controller in the older version ignores Recreate and behaves as RollingUpdate for those existing objects"
  # cite: kep-3541-recreate-strategy.txt | Downgrade | "StatefulSets that already have type: Recreate stored in etcd remain stored, but any update that touches the spec may be rejected unless the strategy is changed back to RollingUpdate/OnDelete first"
  # cite: kep-3541-recreate-strategy.txt | Version Skew Strategy | "StatefulSets are functional, just without Recreate strategy feature ... No errors or warnings"

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
    Then the request is refused with code 422 and a message containing 'spec.updateStrategy.type: Unsupported value: "Recreate"'

  Scenario: apiserver gate off: switching to Recreate is rejected and the set keeps working
    Given the apiserver runs with feature gate "StatefulSetRecreateStrategy" off
    And a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When an attempt is made to change the update strategy of "web" to "Recreate"
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.type"
    And the StatefulSet "web" has "/spec/updateStrategy/type" set to "RollingUpdate"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-1, web-0

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

  Scenario: the leader changes from a gate-on to a gate-off controller in the middle of a Recreate
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "2" seconds
    And all pods of "web" are running and ready
    And within 10 seconds controller replica "controller-1" leads
    And a second controller replica "controller-2" runs with feature gate "StatefulSetRecreateStrategy" off
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-0" is terminating
    When the leading controller replica stops
    Then within 10 seconds controller replica "controller-2" leads
    And within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And no two pods of "web" ever existed for one ordinal
