@base @rolling-update
Feature: RollingUpdate replaces pods in reverse ordinal order, one at a time
  StatefulSet concepts, "Rolling Updates": "the StatefulSet controller will
  delete and recreate each Pod in the StatefulSet. It will proceed in the same
  order as Pod termination (from the largest ordinal to the smallest),
  updating each Pod one at a time." "The Kubernetes control plane waits until
  an updated Pod is Running and Ready prior to updating its predecessor. If
  you have set .spec.minReadySeconds ... the control plane additionally waits
  that amount of time after the Pod turns ready". "Partitioned rolling
  updates": "All Pods with an ordinal that is less than the partition will not
  be updated, and, even if they are deleted, they will be recreated at the
  previous version." "If a StatefulSet's
  .spec.updateStrategy.rollingUpdate.partition is greater than its
  .spec.replicas, updates to its .spec.template will not be propagated to its
  Pods." The status counts as current or updated only
  "not-terminating pods at currentRevision / updateRevision"
  (upstream-statefulset-facts, "Status"), so a pod being replaced leaves
  currentReplicas the moment it starts terminating.

  # cite: statefulset-concepts | Rolling Updates | "the StatefulSet controller will delete and recreate each Pod in the StatefulSet. It will proceed in the same order as Pod termination (from the largest ordinal to the smallest), updating each Pod one at a time."
  # cite: statefulset-concepts | Rolling Updates | "The Kubernetes control plane waits until an updated Pod is Running and Ready prior to updating its predecessor. If you have set .spec.minReadySeconds ... the control plane additionally waits that amount of time after the Pod turns ready"
  # cite: statefulset-concepts | Partitioned rolling updates | "All Pods with an ordinal that is less than the partition will not be updated, and, even if they are deleted, they will be recreated at the previous version."
  # cite: upstream-statefulset-facts | Status | "not-terminating pods at currentRevision / updateRevision"
  # cite: statefulset-concepts | Partitioned rolling updates | "If a StatefulSet's .spec.updateStrategy.rollingUpdate.partition is greater than its .spec.replicas, updates to its .spec.template will not be propagated to its Pods."

  # covers: R25 R30 R46 R52 C24 C26 C27 E5
  Scenario: one pod at a time, each replacement ready before the next
    Given a StatefulSet "web" with 3 replicas and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And at no moment were more than 1 pod of "web" unavailable
    And "web" reports its current revision equal to its update revision
    And "web" has observed its latest generation

  # covers: M11 C28 E23
  Scenario: minReadySeconds holds the next replacement back
    Given a StatefulSet "web" with 2 replicas and min ready seconds "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  # covers: C29 C30 C33
  Scenario: a partition stages a canary, lowering it rolls out the rest
    Given a StatefulSet "web" with 3 replicas and partition "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And for 3 seconds pod "web-1" is neither deleted nor replaced
    And pods of "web" below ordinal 2 were neither deleted nor replaced
    When the partition of "web" is set to 0
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And "web" reports its current revision equal to its update revision

  # covers: C31
  Scenario: a pod deleted below the partition comes back at the current revision
    Given a StatefulSet "web" with 3 replicas and partition "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    When pod "web-0" is deleted
    Then within 60 seconds pod "web-0" of "web" runs the current revision and is ready
    And pod "web-2" of "web" runs the update revision

  # covers: C32
  Scenario: a partition above the replica count updates no pod
    Given a StatefulSet "web" with 3 replicas and partition "5"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    And pods of "web" below ordinal 5 were neither deleted nor replaced
    And "web" has observed its latest generation

  @slow
  Scenario: a pod slow to terminate leaves currentReplicas as soon as it starts terminating
    Given a StatefulSet "web" with 2 replicas and termination taking "8" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 3 seconds pod "web-1" of "web" is terminating and the controller has seen it
    And within 60 seconds all 2 pods of "web" run the update revision and are ready
