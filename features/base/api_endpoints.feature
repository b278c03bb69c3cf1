@base @api
Feature: The StatefulSet endpoints: status subresource, label lists, collections
  Upstream's conformance test should validate Statefulset Status endpoints
  (test/e2e/apps/statefulset.go) reads a StatefulSet's /status, adds a
  condition with an update of the status subresource, then merge-patches
  the conditions through it, and waits each time for a watch to deliver the
  written condition. The controller keeps writing status meanwhile; the
  check is that each write was stored and watched, not that it lasts.
  Its conformance test should list, patch and delete a collection of
  StatefulSets patches a set's labels, replicas and image, waits for the
  set to settle, lists StatefulSets in every namespace by the new label,
  deletes them as a collection and lists again. Other scenarios may hold
  sets under the same label on a shared cluster, so a list is judged by
  what it holds of the scenario's own namespace.

  # covers: E16
  Scenario: a condition added by an update and one merge-patched through the status subresource both reach a watch
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    When the condition "StatusUpdate" with reason "E2E" is added to the status of "web" through its status subresource
    Then within 10 seconds a watch of "web" saw the condition "StatusUpdate"
    When the status of "web" is patched through its status subresource to the condition "StatusPatched"
    Then within 10 seconds a watch of "web" saw the condition "StatusPatched"
    And within 30 seconds all 1 pods of "web" run the update revision and are ready

  # covers: E15
  Scenario: a patched set is found by its new label in every namespace, and deleted with its collection
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      metadata:
        labels:
          test-ss: patched
      spec:
        replicas: 2
        template:
          spec:
            terminationGracePeriodSeconds: 1
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And a list of StatefulSets in every namespace selected by "test-ss=patched" holds "web" and no other of this scenario
    When the StatefulSets labelled "test-ss=patched" are deleted as a collection
    Then within 30 seconds a list of StatefulSets in every namespace selected by "test-ss=patched" holds none of this scenario
