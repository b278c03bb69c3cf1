@limitation @rolling-update
Feature: RollingUpdate with OrderedReady stays stuck after a bad template is fixed
  StatefulSet concepts, "Forced rollback": "If you update the Pod template to
  a configuration that never becomes Running and Ready ... StatefulSet will
  stop the rollout and wait." "In this state, it's not enough to revert the
  Pod template to a good configuration." "After reverting the template, you
  must also delete any Pods that StatefulSet had already attempted to run with
  the bad configuration." This is the limitation KEP-3541 exists to remove
  (its "Summary" names the issues, among them #67250 and #60164), and the
  contrast to the Recreate scenarios: the same story under RollingUpdate does
  not heal by itself.

  # cite: statefulset-concepts | Forced rollback | "If you update the Pod template to a configuration that never becomes Running and Ready (for example, due to a bad binary or application-level configuration error), StatefulSet will stop the rollout and wait."
  # cite: statefulset-concepts | Forced rollback | "In this state, it's not enough to revert the Pod template to a good configuration."
  # cite: statefulset-concepts | Forced rollback | "After reverting the template, you must also delete any Pods that StatefulSet had already attempted to run with the bad configuration."

  # covers: D11 C10 C38 C39 C40
  Scenario: a pod stuck in ImagePullBackOff stays until it is deleted by hand
    Given a StatefulSet "web" with 3 replicas, update strategy "RollingUpdate" and pod management policy "OrderedReady"
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    Then within 30 seconds pod "web-2" is waiting with reason "ImagePullBackOff"
    When the image of "web" is changed to "registry.k8s.io/pause:3.10"
    Then for 5 seconds pod "web-2" is neither deleted nor replaced
    When pod "web-2" is deleted
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
