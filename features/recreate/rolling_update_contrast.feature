@base @rolling-update
Feature: RollingUpdate with OrderedReady stays stuck after a bad template is fixed
  The documented limitation KEP-3541 exists to remove (StatefulSet concepts,
  "Forced rollback"; kubernetes issues #67250 and #60164): "If you update the
  Pod template to a configuration that never becomes Running and Ready ...
  StatefulSet will stop the rollout and wait. After reverting the template,
  you must also delete any Pods that StatefulSet had already attempted to run
  with the bad configuration." This is the contrast to the Recreate
  scenarios: the same story under RollingUpdate does not heal by itself.

  Scenario: a pod stuck in ImagePullBackOff stays until it is deleted by hand
    Given a StatefulSet "web" with 3 replicas, update strategy "RollingUpdate" and pod management policy "OrderedReady"
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    Then within 30 seconds pod "web-2" is waiting with reason "ImagePullBackOff"
    When the image of "web" is changed to "registry.k8s.io/pause:3.10"
    Then for 5 seconds pod "web-2" is neither deleted nor replaced
    When pod "web-2" is deleted
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
