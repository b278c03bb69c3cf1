@faults @isolated @embedded-only
Feature: Rollouts complete when a node goes NotReady with its pods
  A node goes NotReady with its pods: its kubelet stops reporting and its pods
  turn unready. A Recreate rollout that starts meanwhile still never mixes
  revisions and completes once the node is back (KEP-3541, "Proposed Recreate
  Strategy Algorithm", says it "Guarantees old and new pods never run
  simultaneously"); a maxUnavailable rolling update counts the node's unready
  pods against its budget (StatefulSet concepts, "Maximum unavailable Pods",
  says "If there is any unavailable Pod in the range 0 to replicas - 1, it
  will be counted towards maxUnavailable.").

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Guarantees old and new pods never run simultaneously"
  # cite: statefulset-concepts | Maximum unavailable Pods | "If there is any unavailable Pod in the range 0 to replicas - 1, it will be counted towards maxUnavailable."

  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario: Recreate while the node of web-1 is NotReady for 2 seconds
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    When the node of pod "web-1" goes NotReady for 2 seconds
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid

  # covers: M7 C37
  @kep-961 @gate-MaxUnavailableStatefulSet
  Scenario: maxUnavailable 2 while the node of web-0 is NotReady for 5 seconds
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    When the node of pod "web-0" goes NotReady for 5 seconds
    Then within 10 seconds pod "web-0" of "web" is not ready and the controller has seen it
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
