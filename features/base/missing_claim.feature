@base @claims @isolated
Feature: A pending pod's missing claim is created again
  Upstream's e2e test PVC should be recreated when pod is pending due to
  missing PVC (test/e2e/apps/statefulset.go, [Disruptive] [Serial]) pins a
  set's pod to one node, cordons that node, deletes the pod (it comes back
  Pending, unschedulable) and then its claim, uncordons the node, and
  expects the claim to be created again and the pod to run on the same
  node: upstream's processReplica (pkg/controller/statefulset/stateful_set_control.go)
  creates the missing claims of a pod that is Pending
  (createMissingPersistentVolumeClaims). A cordon
  changes the whole cluster, so the scenario runs on a cluster of its own
  (@isolated), as upstream runs it serially.

  # covers: E31
  Scenario: a claim deleted while its pod waits on a cordoned node is created again, and the pod runs where it is pinned
    Given a StatefulSet "web" with 1 replica and a volume claim "data"
    And all pods of "web" are running and ready
    When the pods of "web" are pinned to the node of pod "web-0"
    Then within 60 seconds all 1 pods of "web" run the update revision and are ready
    When the node of pod "web-0" is cordoned
    And pod "web-0" is deleted
    Then within 30 seconds pod "web-0" has "/status/phase" set to "Pending"
    When the PersistentVolumeClaim "data-web-0" is deleted
    And the node of pod "web-0" is uncordoned
    Then within 60 seconds the PersistentVolumeClaim "data-web-0" exists again, bound, as a new object
    And within 60 seconds all 1 pods of "web" run the update revision and are ready
    And within 10 seconds pod "web-0" runs on the node the pods of "web" are pinned to
