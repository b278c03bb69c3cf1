@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: An OnDelete set with a pending template change, switched to Recreate
  StatefulSet concepts, "Update strategies": under OnDelete "the StatefulSet
  controller will not automatically update the Pods in a StatefulSet", so a
  template change stays pending, and a pod deleted by hand comes back at the
  new revision. KEP-3541, "Proposed Recreate Strategy Algorithm": Phase 1
  reads "// Delete ALL pods owned by this StatefulSet that have old
  revision", testing each pod with "IF pod.Labels["controller-revision-hash"]
  != updateRevision THEN", and Phase 3 creates pods only once "No old pods
  remain"; its key characteristics: "Guarantees old and new pods never run
  simultaneously".

  Where sources disagree: "Notes/Constraints/Caveats" says "Strategy Type
  Change Does Not Trigger Rollout" and "The Recreate behavior will only be
  triggered when users either:" change the template or force a rollout; read
  literally, the pods left at the old revision by OnDelete stay until the
  next template change. The pseudo-code's Phase 1 instead deletes every pod
  whose revision is not the update revision, whatever made it so. The spec
  follows the pseudo-code, as recreate/what_is_kept.feature does for a
  partitioned rollout: the switch changes no template and so makes no new
  revision (what the Note's reason, a hash "computed from .spec.template
  content only", speaks of), but the rollout of the pending template change
  is still unfinished, and Phase 1 finishes it with one Recreate, keeping the
  pod already at the update revision. Upstream behaves the same way when an
  OnDelete set with a pending change is switched to RollingUpdate: its
  rolling update replaces every pod not at the update revision. A controller
  that follows the Note's words fails the first scenario; it declares
  deviation type-change-no-rollout (the kep-literal target does), and the
  second scenario checks what that reading promises instead: nothing happens
  at the switch, and the next template change is one Recreate.

  # cite: statefulset-concepts | Update strategies | "the StatefulSet controller will not automatically update the Pods in a StatefulSet"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "// Delete ALL pods owned by this StatefulSet that have old revision"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "IF pod.Labels["controller-revision-hash"] != updateRevision THEN"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "No old pods remain"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Guarantees old and new pods never run simultaneously"
  # cite: kep-3541 | Notes/Constraints/Caveats | "Strategy Type Change Does Not Trigger Rollout"
  # cite: kep-3541 | Notes/Constraints/Caveats | "The Recreate behavior will only be triggered when users either:"
  # cite: kep-3541 | Notes/Constraints/Caveats | "computed from .spec.template content only"

  # covers: R59
  @deviates-type-change-no-rollout @slow
  Scenario: switching to Recreate replaces the pods still at the old revision together, and keeps the one already updated
    # rejects: a controller that starts a Recreate only for a template change made after the switch (the pending change never rolls out), one that replaces the old pods one at a time or creates a new pod while an old one remains, and one that also deletes web-1, already at the update revision
    Given a StatefulSet "web" with 3 replicas, update strategy "OnDelete" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    And within 30 seconds "web" has observed its latest generation
    When pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-0" of "web" runs the current revision
    When the checks that follow look only at what happens from here on
    And the update strategy of "web" is changed to "Recreate"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pod "web-1" was neither deleted nor replaced
    And pods of "web" were deleted without waiting for each other
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time

  @deviation-type-change-no-rollout
  Scenario: a target that reads the Note literally replaces no pod at the switch, and recreates the next template change
    # rejects: a controller that starts a Recreate at the switch, or that then leaves the next template change to OnDelete
    Given a StatefulSet "web" with 3 replicas, update strategy "OnDelete" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    And within 30 seconds "web" has observed its latest generation
    When pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    When the checks that follow look only at what happens from here on
    And the update strategy of "web" is changed to "Recreate"
    Then for 5 seconds no pod of "web" is created or deleted
    And pod "web-0" of "web" runs the current revision
    When the environment variable "VERSION" of "web" is set to "3"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods of "web" were deleted without waiting for each other
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
