@base @rolling-update
Feature: A canary, pods deleted during it, and a phased rollout one ordinal at a time
  StatefulSet concepts, "Partitioned rolling updates": "If a partition is
  specified, all Pods with an ordinal that is greater than or equal to the
  partition will be updated when the StatefulSet's .spec.template is
  updated. All Pods with an ordinal that is less than the partition will not
  be updated, and, even if they are deleted, they will be recreated at the
  previous version." Partitions "are useful if you want to stage an update,
  roll out a canary, or perform a phased roll out." Upstream's conformance
  test `should perform canary updates and phased rolling updates of template
  modifications` stages the change with partition 3, rolls out a canary with
  partition 2, deletes a pod on each side of the partition, then lowers the
  partition to 1 and to 0, checking after each step which pods run which
  revision. Upstream's e2e tests `... for partiton1 and delete pod-0 without
  failing container` and `... with failing container`, and the integration
  test TestDeletingPodForRollingUpdatePartition, hold web-0 below partition
  1 with a finalizer, delete it once web-1 and web-2 run the update, wait
  until the status stops counting it ready (upstream-statefulset-facts,
  "Status": "readyReplicas: Running and Ready"), release it, and expect it
  back at the previous revision; in the second test its container exits 1
  when it is stopped, so it ends Failed while it is held.

  # cite: upstream-statefulset-facts | Status | "readyReplicas: Running and Ready"
  # cite: statefulset-concepts | Partitioned rolling updates | "If a partition is specified, all Pods with an ordinal that is greater than or equal to the partition will be updated when the StatefulSet's .spec.template is updated. All Pods with an ordinal that is less than the partition will not be updated, and, even if they are deleted, they will be recreated at the previous version."
  # cite: statefulset-concepts | Partitioned rolling updates | "are useful if you want to stage an update, roll out a canary, or perform a phased roll out."

  # covers: E6
  Scenario: staged, canary, deletions on both sides of the partition, then partitions 1 and 0
    # rejects: a controller that brings a deleted pod at or above the partition back at the current revision (or one below it at the update revision), or that updates more than the pods at or above a partition lowered by one
    Given a StatefulSet "web" with 3 replicas and partition "3"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    When the partition of "web" is set to 2
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And pod "web-1" of "web" runs the current revision
    And pod "web-0" of "web" runs the current revision
    When the checks that follow look only at what happens from here on
    And pod "web-0" is deleted
    And pod "web-2" is deleted
    Then within 60 seconds pod "web-0" of "web" runs the current revision and is ready
    And within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And pod "web-1" was neither deleted nor replaced
    When the checks that follow look only at what happens from here on
    And the partition of "web" is set to 1
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-0" of "web" runs the current revision
    And pods of "web" below ordinal 1 were neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    When the partition of "web" is set to 0
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And "web" reports its current revision equal to its update revision

  # covers: E7 E8 I7
  @slow
  Scenario Outline: a pod below the partition deleted while a finalizer holds it comes back at the current revision once released (<how>)
    # rejects: a controller that creates web-0 again while the old one still terminates, brings it back at the update revision, keeps counting it ready, or replaces the pods above the partition again
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        serviceName: web
        updateStrategy:
          type: RollingUpdate
          rollingUpdate: {partition: 1}
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: busybox:1.36
                command: [sh, -c, '<trap>while true; do sleep 1; done']
      """
    And all pods of "web" are running and ready
    And pod "web-0" has the finalizer "kepspec.io/hold"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And for 3 seconds pod "web-0" is neither deleted nor replaced
    And pod "web-0" of "web" runs the current revision
    When the checks that follow look only at what happens from here on
    And pod "web-0" is deleted
    Then within 30 seconds pod "web-0" has "/status/phase" set to "<phase>"
    And within 30 seconds the status of "web" reports 3 replicas, 2 of them ready
    And for 3 seconds no further pod of the update revision of "web" is created
    When the finalizer "kepspec.io/hold" is removed from pod "web-0"
    Then within 60 seconds pod "web-0" of "web" runs the current revision and is ready
    And within 30 seconds the status of "web" reports 3 replicas, 3 of them ready
    And pod "web-1" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced

    Examples:
      | how                                 | trap                   | phase     |
      | its container exits 0 when stopped  |                        | Succeeded |
      | its container exits 1 when stopped  | trap "exit 1" TERM;    | Failed    |
