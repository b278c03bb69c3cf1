@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreation follows the podManagementPolicy
  KEP-3541, "Proposed Recreate Strategy Algorithm": in Phase 3, "IF
  podManagementPolicy == OrderedReady THEN ... Create in ascending ordinal
  order; only create the next ordinal when predecessor is Running and Ready
  ... ELSE ... Parallel: create all missing pods at once". Readiness is held
  by a readiness gate so the difference is visible.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "IF podManagementPolicy == OrderedReady THEN ... Create in ascending ordinal order; only create the next ordinal when predecessor is Running and Ready ... ELSE ... Parallel: create all missing pods at once"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "i = lowest ordinal in [0, replicas-1] such that pod i does not exist"
  # cite: upstream-statefulset-facts | Identity | "`.spec.ordinals.start` shifts the range to [start, start+replicas)."

  Where sources disagree: the KEP's pseudo-code picks "i = lowest ordinal in
  [0, replicas-1] such that pod i does not exist"; upstream-statefulset-facts,
  "Identity": "`.spec.ordinals.start` shifts the range to [start,
  start+replicas)." The spec follows that range: the KEP's pseudo-code writes
  the default case, and a Recreate that ignored ordinals.start would create
  pods outside the set's own range. That reading is not one the kep-literal
  target takes: for the set below it would create web-0 and web-1, which
  the set's own spec.ordinals.start excludes, so the spec treats it as a
  defect of the controller, not as a deviation a target may declare.

  # covers: R8 R15
  Scenario: OrderedReady creates ascending, each only after its predecessor is ready
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "OrderedReady" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 1 pod of "web" exists at the update revision
    And for 3 seconds no pod of "web" is created or deleted
    When pod "web-0" is made ready
    Then within 30 seconds 2 pods of "web" exist at the update revision
    When pod "web-1" is made ready
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When pod "web-2" is made ready
    Then within 30 seconds all 3 pods of "web" run the update revision and are ready
    And pods were created in the order web-0, web-1, web-2
    And every pod of "web" was created only after its predecessors were running and ready
    And no pod of the update revision was created while a pod of another revision existed

  # covers: R9 R15
  Scenario: Parallel creates every pod at once, ready or not
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "Parallel" and readiness held by the readiness gate
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 3 pods of "web" exist at the update revision
    And no pod of the update revision was created while a pod of another revision existed

  # covers: R58
  Scenario: a Recreate of a set whose ordinals start at 5 recreates web-5 and web-6, in order
    Given a StatefulSet "web" with 2 replicas, update strategy "Recreate", pod management policy "OrderedReady" and ordinals starting at "5"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pods were created in the order web-5, web-6
    And every pod of "web" was created only after its predecessors were running and ready
    And no pod of the update revision was created while a pod of another revision existed

  # covers: E19
  Scenario: under Parallel a broken image leaves every new pod stuck at once, and a fixed one replaces them all
    # rejects: a controller that creates Recreate's new pods one at a time under Parallel, so only web-0 ever gets stuck, or that keeps a stuck pod of the broken revision once the fix is applied
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and pod management policy "Parallel"
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    Then within 30 seconds pod "web-0" is waiting with reason "ImagePullBackOff"
    And within 30 seconds pod "web-1" is waiting with reason "ImagePullBackOff"
    And within 30 seconds pod "web-2" is waiting with reason "ImagePullBackOff"
    When the image of "web" is changed to "registry.k8s.io/pause:3.10"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
