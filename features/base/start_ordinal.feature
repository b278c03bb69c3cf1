@base @identity
Feature: Changing .spec.ordinals.start on a running set
  upstream-statefulset-facts, "Identity": ".spec.ordinals.start shifts the
  range to [start, start+replicas)." A set whose start changes while it runs
  must end with exactly the pods of the new range: upstream's e2e tests
  `Setting .start.ordinal`, `Increasing .start.ordinal`, `Decreasing
  .start.ordinal` and `Removing .start.ordinal` (test/e2e/apps/statefulset.go,
  StatefulSetStartOrdinal) change it on a running set of 2 replicas and wait
  for the pod names of the new range, and the integration test
  TestStatefulSetStartOrdinal scales such a set down, keeping the pod of the
  start ordinal. The pods that leave the range are condemned like a
  scale-down's, and the new ones are created like a scale-up's, so StatefulSet
  concepts, "Deployment and Scaling Guarantees", orders both for an
  OrderedReady set: "For a StatefulSet with N replicas, when Pods are being
  deployed, they are created sequentially, in order from {0..N-1}." "When
  Pods are being deleted, they are terminated in reverse order, from
  {N-1..0}." Upstream's tests check the names only; these scenarios check the
  order too, and that no ordinal ever had two pods.

  # cite: upstream-statefulset-facts | Identity | ".spec.ordinals.start shifts the range to [start, start+replicas)."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "For a StatefulSet with N replicas, when Pods are being deployed, they are created sequentially, in order from {0..N-1}."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "When Pods are being deleted, they are terminated in reverse order, from {N-1..0}."

  # covers: E32
  Scenario: setting ordinals.start to 2 with 3 replicas leaves web-2, web-3 and web-4
    # rejects: a controller that reads ordinals.start only at creation, or creates the new range out of order
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        replicas: 3
        ordinals: {start: 2}
      """
    Then within 60 seconds the pods of "web" are web-2, web-3, web-4
    And within 60 seconds the status of "web" reports 3 replicas, 3 of them ready
    And pods were created in the order web-2, web-3, web-4

  # covers: E33
  Scenario: raising ordinals.start from 2 to 4 replaces web-2 and web-3 with web-4 and web-5
    # rejects: a controller that keeps the pods of the old range, or deletes them in ascending order
    Given a StatefulSet "web" with 2 replicas and ordinals starting at "2"
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        ordinals: {start: 4}
      """
    Then within 60 seconds the pods of "web" are web-4, web-5
    And within 60 seconds the status of "web" reports 2 replicas, 2 of them ready
    And pods were created in the order web-4, web-5
    And pods were deleted in the order web-3, web-2
    And pods web-3, web-2 were each gone before the next one was deleted

  # covers: E34
  Scenario: lowering ordinals.start from 3 to 2 replaces only web-4
    # rejects: a controller that replaces every pod when the range moves, although web-3 stays in it
    Given a StatefulSet "web" with 2 replicas and ordinals starting at "3"
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        ordinals: {start: 2}
      """
    Then within 60 seconds the pods of "web" are web-2, web-3
    And within 60 seconds the status of "web" reports 2 replicas, 2 of them ready
    And pod "web-3" was neither deleted nor replaced

  # covers: E35
  Scenario: removing ordinals (start 3) replaces web-3 and web-4 with web-0 and web-1
    # rejects: a controller that keeps the last start when the field is removed
    Given a StatefulSet "web" with 2 replicas and ordinals starting at "3"
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        ordinals: null
      """
    Then within 60 seconds the pods of "web" are web-0, web-1
    And within 60 seconds the status of "web" reports 2 replicas, 2 of them ready
    And pods were created in the order web-0, web-1
    And pods were deleted in the order web-4, web-3

  # covers: I8
  Scenario Outline: a set starting at <start> with <replicas> replicas scaled down to 1 keeps web-<start>
    # rejects: a controller that scales down from ordinal 0 upward, or counts from 0 instead of the start
    Given a StatefulSet "web" with <replicas> replicas and ordinals starting at "<start>"
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds the pods of "web" are web-<start>
    And pod "web-<start>" was neither deleted nor replaced
    And no pod of "web" was terminated out of order

    Examples:
      | start | replicas |
      | 4     | 4        |
      | 2     | 7        |
