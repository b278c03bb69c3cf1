@kep-961 @since-v1.35 @skew @isolated @embedded-only
Feature: MaxUnavailableStatefulSet turned off and on again
  KEP-961, "Downgrade": "downgrade of either kube-apiserver or
  kube-controller-manager to a version with the feature flag was disabled,
  when the field was not set the behavior doesn't change"; with the field set,
  "the field gets ignored by controller, and controller behaves as if the
  field is not set". On disabling mid-rollout (production readiness, on
  rolling the enablement back): "If the feature is disabled in the middle of
  the rollout, the rollout will continue as if maxUnavailable is 1. If there
  is more than one pod undergoing an update, it will wait for them to complete
  their update, and continue as if maxUnavailable is 1." On re-enabling,
  maxUnavailable "will take effect again". The KEP's Test Plan lists a
  "Feature enablement/disablement test", and its answer on the
  upgrade->downgrade->upgrade path describes a manual test: set A with 6
  replicas and maxUnavailable 3 rolls out 3 at a time, after the downgrade 1
  at a time, set B created without the field keeps the default, and after the
  upgrade the field "can be set again to StatefulSet A". The scenarios below
  run those as restarts of both components with the gate switched, keeping the
  objects.

  Where sources disagree: "Downgrade" says of a stored value both "we
  maintain is as it is" and, for the apiserver, "the field gets ignored by
  apiserver". The first two scenarios follow the first sentence and upstream
  (upstream-statefulset-facts: "kept if already stored"): the value stays
  stored through writes made with the gate off, and so can take effect
  again. An apiserver that drops it from the next write instead declares
  deviation max-unavailable-ignored-by-apiserver (the kep-literal target
  does); skew/max_unavailable_gates.feature checks that reading.

  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "downgrade of either kube-apiserver or kube-controller-manager to a version with the feature flag was disabled, when the field was not set the behavior doesn't change"
  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "the field gets ignored by controller, and controller behaves as if the field is not set"
  # cite: kep-961 | Can the feature be disabled once it has been enabled (i.e. can we roll back the enablement)? | "If the feature is disabled in the middle of the rollout, the rollout will continue as if maxUnavailable is 1. If there is more than one pod undergoing an update, it will wait for them to complete their update, and continue as if maxUnavailable is 1."
  # cite: kep-961 | What happens if we reenable the feature if it was previously rolled back? | "will take effect again"
  # cite: kep-961 | Test Plan | "Feature enablement/disablement test"
  # cite: kep-961 | Were upgrade and rollback tested? Was the upgrade->downgrade->upgrade path tested? | "can be set again to StatefulSet A"

  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "If the object with this field already exists, we maintain is as it is, but the controller will just ignore this field."
  # cite: kep-961 | Upgrade / Downgrade Strategy > Downgrade | "the field gets ignored by apiserver, and controller behaves as if the field is not set"
  # cite: upstream-statefulset-facts | Validation (apiserver) | "With the gate off on the apiserver, a new maxUnavailable is silently dropped (kept if already stored)."

  # covers: M21 M36 M38
  @deviates-max-unavailable-ignored-by-apiserver
  Scenario: a stored maxUnavailable 3 is ignored while both gates are off and takes effect again once they are on
    # rejects: a controller that keeps using a stored maxUnavailable with its gate off, or that does not use it again once the gate is back on
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" off
    And the controller restarts with feature gate "MaxUnavailableStatefulSet" off
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" set to "3"
    And at no moment were more than 1 pod of "web" unavailable
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" on
    And the controller restarts with feature gate "MaxUnavailableStatefulSet" on
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 3 pods of "web" unavailable
    And at some moment 3 pods of "web" were unavailable at once

  # covers: M37
  Scenario: the gate turned off in the middle of a rollout: the replacements under way finish, the rest go one at a time
    # rejects: a controller restarted with the gate off that still replaces up to maxUnavailable pods at once
    Given a StatefulSet "web" with 6 replicas, pod management policy "Parallel", max unavailable "3" and readiness held by the readiness gate
    When pods web-0, web-1, web-2, web-3, web-4, web-5 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 6 pods of "web" run the update revision and are ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When the controller restarts with feature gate "MaxUnavailableStatefulSet" off
    Then for 3 seconds no further pod of the update revision of "web" is created
    When pod "web-5" is made ready
    And pod "web-4" is made ready
    And the checks that follow look only at what happens from here on
    And pods web-3, web-2, web-1, web-0 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 6 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  # covers: M32 M39
  @deviates-max-unavailable-ignored-by-apiserver
  Scenario: upgrade, downgrade and upgrade again with set a (6 replicas, maxUnavailable 3) and set b (unset)
    # rejects: a controller that uses maxUnavailable with its gate off, changes the default of a set that never set it, or does not use the field again after the upgrade
    Given the apiserver runs with feature gate "MaxUnavailableStatefulSet" off
    And the controller runs with feature gate "MaxUnavailableStatefulSet" off
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" on
    And the controller restarts with feature gate "MaxUnavailableStatefulSet" on
    And a StatefulSet "a" with 6 replicas, pod management policy "Parallel" and max unavailable "3" is submitted
    Then the request is accepted
    And within 60 seconds all 6 pods of "a" run the update revision and are ready
    When the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "a" is set to "2"
    Then within 60 seconds all 6 pods of "a" run the update revision and are ready
    And at no moment were more than 3 pods of "a" unavailable
    And at some moment 3 pods of "a" were unavailable at once
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" off
    And the controller restarts with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "b" with 4 replicas and pod management policy "Parallel" is submitted
    Then the request is accepted
    And within 60 seconds all 4 pods of "b" run the update revision and are ready
    When the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "a" is set to "3"
    And the environment variable "VERSION" of "b" is set to "2"
    Then within 60 seconds all 6 pods of "a" run the update revision and are ready
    And within 60 seconds all 4 pods of "b" run the update revision and are ready
    And at no moment were more than 1 pod of "a" unavailable
    And at no moment were more than 1 pod of "b" unavailable
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" on
    And the controller restarts with feature gate "MaxUnavailableStatefulSet" on
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "a" is set to "4"
    And the environment variable "VERSION" of "b" is set to "3"
    Then within 60 seconds all 6 pods of "a" run the update revision and are ready
    And within 60 seconds all 4 pods of "b" run the update revision and are ready
    And at some moment 3 pods of "a" were unavailable at once
    And at no moment were more than 3 pods of "a" unavailable
    And at no moment were more than 1 pod of "b" unavailable
