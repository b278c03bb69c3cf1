@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Scaling while a Recreate waits for the old pods to terminate
  KEP-3541, "Proposed Recreate Strategy Algorithm": Phase 2 waits "for all
  old-revision pods to be fully removed from etcd", and Phase 1 deletes
  every pod of an old revision, which "handles orphaned pods with ordinals >=
  replicas". A change of .spec.replicas while the old pods terminate changes
  which ordinals Phase 3 creates, not whether it waits: no pod of the new
  revision may appear, at any ordinal, before every old pod is gone.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// Phase 2: Wait for all old-revision pods to be fully removed from etcd"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// This handles orphaned pods with ordinals >= replicas"

  # covers: R2 R56
  Scenario Outline: scaling to <replicas> (<policy>) while the old pods are still terminating
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "<policy>" and termination taking "3" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-0" is terminating
    When "web" is scaled to <replicas> replicas
    Then within 60 seconds all <replicas> pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

    Examples:
      | replicas | policy       |
      | 5        | OrderedReady |
      | 2        | OrderedReady |
      | 5        | Parallel     |
      | 2        | Parallel     |
