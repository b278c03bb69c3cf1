@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreate deletes every old pod, waits until all are gone, then creates
  KEP-3541, "Proposed Recreate Strategy Algorithm": Phase 1 deletes ALL pods
  of an old revision, Phase 2 waits "for all old-revision pods to be fully
  removed from etcd", Phase 3 creates the new pods. "Guarantees old and new
  pods never run simultaneously" — terminating pods included, which is why
  termination is made slow here (a preStop sleep), so the wait is observable.
  The KEP's SLO: "99% of Recreate updates complete within (pod termination
  time + pod startup time + 30s)".

  Scenario: a template change replaces all pods with no moment of mixed revisions
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And every pod of "web" was being deleted before any of them was gone
    And no pod of the update revision was created while a pod of another revision existed
    And no two pods of "web" ever existed for one ordinal
    And the update of "web" completed within its pods' termination and startup time plus 30 seconds

  Scenario: the Progressing condition and the RecreateStarted event tell the story
    Given a StatefulSet "web" with 2 replicas, update strategy "Recreate" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And "web" had condition "Progressing" with status "True" and reason "RecreateInProgress" during the update
    And "web" has condition "Progressing" with status "True" and reason "RecreateComplete"
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
