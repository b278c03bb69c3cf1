@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: A second template change during a Recreate
  KEP-3541, "Proposed Recreate Strategy Algorithm": `determine_phase()` counts
  every pod whose revision is not the update revision as old; the algorithm
  "Uses controller-revision-hash label (same as RollingUpdate) to identify old
  vs new pods", and Phase 3 creates each pod with "create_pod(i,
  updateRevision)". A template change while old pods are still terminating
  moves the target; the controller keeps waiting, then creates pods of the
  newest revision only. The pseudo-code emits `RecreateStarted` only when old pods
  still need deleting: "Only emit event on first entry to this phase
  (tracked via condition)". Every old pod is already being deleted when the
  second change lands, so the rollout has one; a change after a completed
  Recreate is a rollout of its own, with its own event.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Uses controller-revision-hash label (same as RollingUpdate) to identify old vs new pods"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Only emit event on first entry to this phase (tracked via condition)"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "create_pod(i, updateRevision)"

  # covers: R5 R60
  Scenario: a second change while the first Recreate waits for termination
    # rejects: a controller that creates pods of the intermediate revision (seen late) before it moves on to the newest, even if it deletes them again before creating the final ones
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "3" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-0" is terminating
    When the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And every pod of "web" created since the first change is of the revision it ended at
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

  # covers: R5
  Scenario: a change after a completed Recreate starts a Recreate of its own
    Given a StatefulSet "web" with 2 replicas, update strategy "Recreate" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    When the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 2 times
