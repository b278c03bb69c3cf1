@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet @since-v1.37
Feature: broken pods of an old revision do not deadlock a Parallel rollout
  Kubernetes issue #137409 (v1.35): pods of an old revision that were already
  broken were counted against the budget, so with more broken pods than
  maxUnavailable a Parallel rollout could never proceed and the fix could
  never be rolled out; fixed by #137666 (v1.37), as recorded in
  upstream-statefulset-facts, "Feature history worth a scenario". Replacing a
  pod that is already unavailable does not make anything more unavailable.

  Where sources disagree: KEP-3541, "Summary", written before that fix, says
  that with podManagementPolicy Parallel "stuck pods remain and are not
  automatically replaced". The spec follows the fixed upstream controller
  (calibration-facts: "The broken-pods fix #137666 is in v1.37 only"): once
  the template is fixed, the broken pods are replaced.

  # cite: kep-3541 | Summary | "While podManagementPolicy: Parallel allows pods to be updated simultaneously without waiting for Ready state, stuck pods remain and are not automatically replaced."
  # cite: calibration-facts | Feature-gate defaults (kubernetes/website feature-gates pages; PRs named) | "The broken-pods fix #137666 is in v1.37 only"

  Scenario: every pod broken, then the template is fixed
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    And pod "web-0" is deleted
    And pod "web-1" is deleted
    Then within 60 seconds pod "web-0" is waiting with reason "ImagePullBackOff"
    When the image of "web" is changed to "registry.k8s.io/pause:3.10"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
