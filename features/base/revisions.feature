@base @revisions
Feature: Revisions: rollback reuses the earlier one, completion promotes the update revision, history keeps what is in use
  upstream-statefulset-facts, "Revisions": "Only a change of .spec.template
  makes a new revision (a strategy-type change does not)." "Rolling back to an
  earlier template reuses the old ControllerRevision". "Status": "Rollout
  complete when updated = ready = replicas = spec.replicas: then
  currentRevision := updateRevision." "Reconcile order (one sync)": every sync
  will "write observedGeneration", so it follows the generation.

  Until a rollout completes, the current revision is the one the pods below
  the partition keep. StatefulSet concepts, "Partitioned rolling updates":
  they "will be recreated at the previous version", so a second template
  change during a held rollout leaves the first revision current; the
  revision in between was never current.

  The history (upstream-statefulset-facts, "Revisions", read from
  pkg/controller/statefulset/stateful_set_control.go, truncateHistory):
  "revisions not named by current, update or any pod are deleted, oldest
  first, down to revisionHistoryLimit". A revision the status or a pod still
  names is never deleted, whatever the limit; with a limit of 0 every other
  one is. And from pkg/controller/history/controller_history.go,
  CreateControllerRevision: a revision name already taken by a
  ControllerRevision with other data is a "Name collision with different
  data: increment status.collisionCount, rehash."

  Revision numbers: a revision a rollback reuses "is raised to max+1"
  (upstream-statefulset-facts, "Revisions"), and a new one is numbered the
  same way: upstream's nextRevision (pkg/controller/statefulset/
  stateful_set_utils.go) numbers it one above the largest number among the
  set's revisions.

  # cite: upstream-statefulset-facts | Revisions | "Only a change of .spec.template makes a new revision (a strategy-type change does not)."
  # cite: upstream-statefulset-facts | Revisions | "Rolling back to an earlier template reuses the old ControllerRevision"
  # cite: upstream-statefulset-facts | Revisions | "its `revision` number is raised to max+1"
  # cite: upstream-statefulset-facts | Status | "Rollout complete when updated = ready = replicas = spec.replicas: then currentRevision := updateRevision."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "Compute current/update revisions, write observedGeneration, revisions, collisionCount and counts."
  # cite: statefulset-concepts | Partitioned rolling updates | "All Pods with an ordinal that is less than the partition will not be updated, and, even if they are deleted, they will be recreated at the previous version."
  # cite: upstream-statefulset-facts | Revisions | "Name collision with different data: increment `status.collisionCount`, rehash."
  # cite: upstream-statefulset-facts | Revisions | "History: revisions not named by current, update or any pod are deleted, oldest first, down to `revisionHistoryLimit` (default 10)."

  # covers: E5
  # rejects: a controller that reuses the earlier revision without raising its number, or that raises a number again at every sync
  Scenario: rolling back to the earlier template reuses its revision
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When the update revision of "web" is remembered as "first"
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    When "web" is changed with this merge patch:
      """
      spec:
        template:
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And the update revision of "web" is the one remembered as "first"
    And "web" reports its current revision equal to its update revision
    And "web" has observed its latest generation
    And within 10 seconds the revision remembered as "first" has revision number 3
    And every ControllerRevision of "web" got its revision number one above the highest of its other revisions

  # covers: E4
  Scenario: rolling back a set with volume claims reuses its revision and keeps every claim
    # rejects: a controller that makes a new revision for a template it already has, or that replaces the claims along with the pods
    Given a StatefulSet "web" with 2 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    When the update revision of "web" is remembered as "first"
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    When "web" is changed with this merge patch:
      """
      spec:
        template:
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
                volumeMounts:
                  - {name: data, mountPath: /data/data}
      """
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And the update revision of "web" is the one remembered as "first"
    And "web" reports its current revision equal to its update revision
    And every PersistentVolumeClaim of "web" kept its uid
    And every PersistentVolumeClaim of "web" kept its volume

  # covers: C31
  Scenario: a second template change while a partition holds the rollout keeps the first revision current
    # rejects: a controller that takes the revision before the newest one for the current revision, so after a second change it reports the abandoned revision in between as current and brings a pod below the partition back at that template
    Given a StatefulSet "web" with 3 replicas and partition "2"
    And all pods of "web" are running and ready
    When the current revision of "web" is remembered as "first"
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    When the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    When pod "web-0" is deleted
    Then at no moment did "web" report another current revision than the one remembered as "first"
    And within 30 seconds pod "web-0" of "web" runs the revision remembered as "first" and is ready
    And pod "web-1" was neither deleted nor replaced

  Scenario: revisionHistoryLimit 0 deletes the revision in between and keeps every revision in use
    # rejects: a controller that applies revisionHistoryLimit to every revision, deleting the one the pods below the partition still run, or one that never deletes a revision
    Given a StatefulSet "web" with 3 replicas and partition "2"
    And all pods of "web" are running and ready
    When the current revision of "web" is remembered as "first"
    And "web" is changed with this merge patch:
      """
      spec:
        revisionHistoryLimit: 0
      """
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    When the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    And within 30 seconds the only ControllerRevisions of "web" are the ones its status or its pods name
    When pod "web-0" is deleted
    Then at no moment was a ControllerRevision of "web" deleted while its status or one of its pods named it
    And within 30 seconds pod "web-0" of "web" runs the revision remembered as "first" and is ready

  Scenario: a revision name already taken by another template raises collisionCount
    # rejects: a controller that takes the ControllerRevision already holding the name for its own (its pods then carry a revision whose data is another template), or one that steps past the name without writing the raised collisionCount to its status
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When a revision of "web" with another template takes the name that setting "VERSION" to "2" would give, remembered as "taken"
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And the StatefulSet "web" has "/status/collisionCount" set to "1"
    And at no moment did a pod of "web" run the revision remembered as "taken"
