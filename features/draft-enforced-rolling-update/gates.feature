@kep-3541-draft @skew @isolated @embedded-only
Feature: EnforcedRollingUpdate exists only behind its gate, on both components
  The KEP-3541 draft puts its strategy behind the feature gate
  EnforcedRollingUpdateInStatefulSet of kube-apiserver and
  kube-controller-manager ("Feature Enablement and Rollback"); it is "an
  opt-in strategy for end-users to choose, it won't change previous
  behaviors if you don't configure anything" ("Upgrade"). It states no
  validation message, and nothing of what a controller with the gate off
  does with a stored EnforcedRollingUpdate.

  The spec chooses, and says where from. An apiserver with the gate off
  refuses the type as it refuses every type it does not know: upstream's
  ValidateStatefulSetSpec answers any type other than RollingUpdate and
  OnDelete with an Invalid value at spec.updateStrategy that says it must be
  one of those two (pkg/apis/apps/validation/validation.go).
  The enforcedRollingUpdate block is allowed only with its own type, as
  rollingUpdate is only with RollingUpdate. A controller with the gate off
  treats the type as RollingUpdate, since upstream's controller short-cuts
  only OnDelete and runs the rolling update for any other type
  (pkg/controller/statefulset/stateful_set_control.go); a stuck pod then
  stays, as under RollingUpdate, and the enforcedRollingUpdate block, which
  upstream's types do not have, partitions nothing.

  # cite: kep-3541-draft | Upgrade | "an opt-in strategy for end-users to choose, it won't change previous behaviors if you don't configure anything"

  # covers: D1 D10
  Scenario: apiserver gate off: a StatefulSet of type EnforcedRollingUpdate is refused as an unsupported type
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" off
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
          type: EnforcedRollingUpdate
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy: Invalid value"
    And the request is refused with code 422 and a message containing "must be 'RollingUpdate' or 'OnDelete'"

  # covers: D1
  Scenario: apiserver gate on: the enforcedRollingUpdate block belongs to its own type only
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" on
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
          type: RollingUpdate
          enforcedRollingUpdate: {partition: 1}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.enforcedRollingUpdate: Invalid value"

  # covers: D10
  Scenario: apiserver gate on, controller gate off: EnforcedRollingUpdate behaves as RollingUpdate
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" on
    And the controller runs with feature gate "EnforcedRollingUpdateInStatefulSet" off
    And a StatefulSet "web" with 3 replicas and update strategy "EnforcedRollingUpdate"
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    Then within 30 seconds pod "web-2" is waiting with reason "ImagePullBackOff"
    When the image of "web" is changed to "registry.k8s.io/pause:3.10"
    Then for 5 seconds pod "web-2" is neither deleted nor replaced
    And the event "ForcedReplacement" was recorded for "web" exactly 0 times
    And the event "EnforcedRollingUpdateStarted" was recorded for "web" exactly 0 times

  # covers: D10
  Scenario: apiserver gate on, controller gate off: the block's partition means nothing to the RollingUpdate it falls back to
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" on
    And the controller runs with feature gate "EnforcedRollingUpdateInStatefulSet" off
    And a StatefulSet "web" with 3 replicas, update strategy "EnforcedRollingUpdate" and partition "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the event "EnforcedRollingUpdateStarted" was recorded for "web" exactly 0 times
