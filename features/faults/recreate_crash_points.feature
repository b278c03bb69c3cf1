@kep-3541 @gate-StatefulSetRecreateStrategy @faults @isolated @embedded-only
Feature: Recreate survives a controller restart at any point
  KEP-3541, "Proposed Recreate Strategy Algorithm": "All old-revision pods are
  fully terminated before any new pods are created", and the algorithm is
  "Safe to retry deletions and creations on controller restart". "Risks and
  Mitigations": "PVC Preservation: PersistentVolumeClaims are not deleted". A
  controller that crashes and starts again in the middle of a Recreate rollout
  must resume from what it observes, not from memory: it converges, never
  mixes revisions, never deletes a claim and never creates two pods for one
  ordinal. `kepspec explore --name '<scenario>'` reruns the first two
  scenarios with a restart right after each write of the controller in turn.
  Where a restart may fall between the status write that records the
  rollout and the RecreateStarted event, the event is checked at most once,
  not exactly once: the pseudo-code tracks the event via the condition ("Only
  emit event on first entry to this phase (tracked via condition)"), so a
  restarted controller that finds the condition already set rightly emits
  none, and losing the event there is what the KEP's design allows. A
  controller that emits it again after the restart still fails; the
  scenario whose restart comes after the deletion of web-1 (past the
  event) requires exactly one.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "All old-revision pods are fully terminated before any new pods are created"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Safe to retry deletions and creations on controller restart"
  # cite: kep-3541 | Risks and Mitigations > Risk: Unintended Data Loss | "PVC Preservation: PersistentVolumeClaims are not deleted, so data on volumes persists across recreate operations"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Only emit event on first entry to this phase (tracked via condition)"

  # covers: R14
  @explore
  Scenario: OrderedReady Recreate with a restart at any point
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "OrderedReady" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller may crash after any of its writes
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the event "RecreateStarted" was recorded for "web" at most 1 time

  @explore
  Scenario: Parallel Recreate with a restart at any point
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "Parallel" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller may crash after any of its writes
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the event "RecreateStarted" was recorded for "web" at most 1 time

  # covers: R5 R14 R34
  Scenario: a restart right after the controller deletes pod web-1
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller restarts right after it deletes pod "web-1"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
    And every injected fault was triggered

  # covers: R14 R34
  Scenario: a restart right after the controller's first status write of the rollout
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "Parallel" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller restarts right after its first status write
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every injected fault was triggered
    And the event "RecreateStarted" was recorded for "web" at most 1 time
