@skew @isolated @embedded-only
Feature: every combination of the apiserver's and the controller's gate
  KEP-3541, "Partial Upgrade Behavior": "If apiserver has feature enabled but
  kube-controller-manager does not: ... Kube-controller-manager ignores
  Recreate type and falls back to default RollingUpdate behavior"; "If
  apiserver does NOT have feature enabled ... API server rejects
  create/update requests that set type: Recreate with a validation error".
  KEP-961, "Version Skew Strategy": "If both api-server and
  kube-controller-manager have a version where the feature is enabled, then
  maxUnavailable will take effect"; "If only api-server has a version where
  the feature is enabled ... we'll fall into the default rolling-update
  behavior, one pod at a time"; "If only kube-controller-manager has a
  version where the feature is enabled, then this field is invisible to
  users, we'll keep the default rolling-update behavior, one pod at a time".
  Its PRR section, "How can a rollout or rollback fail? Can it impact already
  running workloads?", for both gates off: "StatefulSet updates revert to the
  default Kubernetes behavior, ignoring any maxUnavailable settings even if
  previously specified." KEP-3541's SLO, "100% of StatefulSets without type:
  Recreate behave identically to pre-feature behavior", is checked as an
  A/B: the same RollingUpdate and OnDelete rollouts with the controller's
  gate on and off. Each row runs on a cluster of its own.

  Where sources disagree: the fourth bullet of KEP-961's "Version Skew
  Strategy" reads "If both api-server and kube-controller-manager have a
  version where the feature is enabled, then only one Pod will be updated at
  a time as the default behavior", which contradicts its first bullet; the
  spec reads it, with the PRR section, as the row with both gates off. The
  same PRR section says a maxUnavailable sent to an apiserver with the gate
  off is "rejected", where its "Downgrade" section says it is "silently
  dropped"; the spec follows upstream's strategy (the field is dropped), as
  skew/max_unavailable_gates.feature does.

  # cite: kep-3541 | Partial Upgrade Behavior | "If apiserver has feature enabled but kube-controller-manager does not: ... Kube-controller-manager ignores Recreate type and falls back to default RollingUpdate behavior"
  # cite: kep-3541 | What are the reasonable SLOs (Service Level Objectives) for the enhancement? | "100% of StatefulSets without type: Recreate behave identically to pre-feature behavior"
  # cite: kep-3541 | Partial Upgrade Behavior | "If apiserver does NOT have feature enabled ... API server rejects create/update requests that set type: Recreate with a validation error"
  # cite: kep-961 | Version Skew Strategy | "If both api-server and kube-controller-manager have a version where the feature is enabled, then `maxUnavailable` will take effect"
  # cite: kep-961 | Version Skew Strategy | "If only api-server has a version where the feature is enabled ... we'll fall into the default rolling-update behavior, one pod at a time"
  # cite: kep-961 | Version Skew Strategy | "If only kube-controller-manager has a version where the feature is enabled, then this field is invisible to users, we'll keep the default rolling-update behavior, one pod at a time"
  # cite: kep-961 | How can a rollout or rollback fail? Can it impact already running workloads? | "StatefulSet updates revert to the default Kubernetes behavior, ignoring any `maxUnavailable` settings even if previously specified."
  # cite: kep-961 | Version Skew Strategy | "If both api-server and kube-controller-manager have a version where the feature is enabled, then only one Pod will be updated at a time as the default behavior"
  # cite: kep-961 | How can a rollout or rollback fail? Can it impact already running workloads? | "rejected"
  # cite: kep-961 | Downgrade | "silently dropped"

  # covers: R1 R36
  @kep-3541 @since-v1.37
  Scenario Outline: Recreate with the apiserver gate on and the controller gate <controller>
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" <controller>
    And a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced <how>

    Examples: both on
      | controller | how         |
      | on         | all at once |

    @deviates-controller-gate-off-no-fallback
    Examples: the controller falls back
      | controller | how                                  |
      | off        | one at a time, highest ordinal first |

  # The SLO "100% of StatefulSets without type: Recreate behave identically
  # to pre-feature behavior", as an A/B: the same rollouts with the
  # controller's StatefulSetRecreateStrategy gate on and off (pre-feature),
  # held to the same checks.
  # covers: R52
  @kep-3541 @since-v1.37
  Scenario Outline: a RollingUpdate set behaves the same with the controller's Recreate gate <controller>
    # rejects: a controller whose Recreate code path changes RollingUpdate: more than one pod replaced at once, or in another order
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" <controller>
    And a StatefulSet "web" with 3 replicas, update strategy "RollingUpdate" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced one at a time, highest ordinal first
    And at no moment were more than 1 pod of "web" unavailable

    Examples:
      | controller |
      | on         |
      | off        |

  # covers: R52
  @kep-3541 @since-v1.37
  Scenario Outline: an OnDelete set behaves the same with the controller's Recreate gate <controller>
    # rejects: a controller whose Recreate code path replaces OnDelete pods by itself, or not at the update revision
    Given the controller runs with feature gate "StatefulSetRecreateStrategy" <controller>
    And a StatefulSet "web" with 3 replicas, update strategy "OnDelete" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    And within 30 seconds "web" has observed its latest generation
    When pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-0" of "web" runs the current revision
    And pod "web-2" of "web" runs the current revision

    Examples:
      | controller |
      | on         |
      | off        |

  # covers: R37
  @kep-3541 @since-v1.37
  Scenario Outline: Recreate with the apiserver gate off is refused whatever the controller's gate (<controller>)
    Given the apiserver runs with feature gate "StatefulSetRecreateStrategy" off
    And the controller runs with feature gate "StatefulSetRecreateStrategy" <controller>
    When a StatefulSet "web" with 1 replica and update strategy "Recreate" is submitted
    Then the request is refused with code 422 and a message containing "spec.updateStrategy"

    Examples:
      | controller |
      | on         |
      | off        |

  # covers: M30 M33 M34 M35
  @kep-961 @since-v1.35
  Scenario Outline: maxUnavailable 3 with the apiserver gate <apiserver> and the controller gate <controller>
    Given the apiserver runs with feature gate "MaxUnavailableStatefulSet" <apiserver>
    And the controller runs with feature gate "MaxUnavailableStatefulSet" <controller>
    And a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than <most> pods of "web" unavailable
    And at some moment <most> pods of "web" were unavailable at once

    Examples:
      | apiserver | controller | most |
      | on        | on         | 3    |
      | on        | off        | 1    |
      | off       | on         | 1    |
      | off       | off        | 1    |
