@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: A Recreate replaces old pods, and only them
  KEP-3541, "Proposed Recreate Strategy Algorithm": Phase 1 reads "// Delete
  ALL pods owned by this StatefulSet that have old revision", and tests each
  pod with "IF pod.Labels["controller-revision-hash"] != updateRevision
  THEN", so a pod already at the update revision is kept. Of a pod of the
  new revision that is being deleted it says "// Note: new revision pods with
  DeletionTimestamp are ignored" "// (could happen if user manually deleted,
  will be recreated)": Phase 3 creates the missing ordinal again, and no new
  Recreate starts. "Notes/Constraints/Caveats": "The Recreate behavior will
  only be triggered when users either:" change the template or restart the
  rollout; "Implementation History" records why readiness is not a trigger:
  "Deleting/terminating pods based on readiness signals is problematic and
  disruptive".

  Where sources disagree: the KEP has no example of a partitioned rollout
  switched to Recreate. Read literally, "Notes/Constraints/Caveats" starts
  no Recreate for a change of the strategy alone, so web-0 and web-1 would
  stay at the old revision; Phase 1 of the pseudo-code deletes every pod not
  at the update revision, whatever left it there. The spec follows the
  pseudo-code, for the reasons recreate/from_on_delete.feature gives: the
  switch makes no new revision, it finishes the rollout left unfinished. A
  controller that follows the Note's words fails the first scenario; it
  declares deviation type-change-no-rollout, checked by
  recreate/from_on_delete.feature.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// Delete ALL pods owned by this StatefulSet that have old revision"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "IF pod.Labels["controller-revision-hash"] != updateRevision THEN"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// Note: new revision pods with DeletionTimestamp are ignored"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// (could happen if user manually deleted, will be recreated)"
  # cite: kep-3541 | Notes/Constraints/Caveats | "The Recreate behavior will only be triggered when users either:"
  # cite: kep-3541 | Implementation History | "Deleting/terminating pods based on readiness signals is problematic and disruptive"

  # covers: R4
  @deviates-type-change-no-rollout
  Scenario: a partitioned rollout switched to Recreate keeps the pod already updated
    Given a StatefulSet "web" with 3 replicas, partition "2" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds pod "web-2" of "web" runs the update revision and is ready
    When the checks that follow look only at what happens from here on
    And the update strategy of "web" is changed to "Recreate"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pod "web-2" was neither deleted nor replaced
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

  # covers: R22
  Scenario: a pod that turns unready starts no Recreate
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When the checks that follow look only at what happens from here on
    And pod "web-1" is made not ready
    Then within 60 seconds pod "web-1" of "web" is not ready and the controller has seen it
    And for 5 seconds no pod of "web" is created or deleted
    And pod "web-0" was neither deleted nor replaced
    And pod "web-1" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    And the event "RecreateStarted" was recorded for "web" exactly 0 times

  # covers: R11
  Scenario: a new pod deleted by hand is created again, and nothing else is touched
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When the checks that follow look only at what happens from here on
    And pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    And the event "RecreateStarted" was recorded for "web" exactly 0 times
