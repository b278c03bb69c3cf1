@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: What starts a Recreate
  KEP-3541, "Notes/Constraints/Caveats": "changing only
  .spec.updateStrategy.type from RollingUpdate to Recreate (or vice versa)
  does not trigger a new rollout"; the Recreate behavior is triggered when
  users "Make a change to .spec.template" or "Force a rollout using kubectl
  rollout restart", which stamps the template with
  kubectl.kubernetes.io/restartedAt. upstream-statefulset-facts, "Revisions",
  says the same of the reference implementation: "Only a change of
  .spec.template makes a new revision (a strategy-type change does not)."

  Where sources disagree: the `RecreateStarted` event counted here comes from
  KEP-3541's pseudo-code; calibration-facts reports it "not found in public
  sources for the merged code" of upstream. The spec states the KEP.

  # cite: kep-3541 | Notes/Constraints/Caveats | "changing only .spec.updateStrategy.type from RollingUpdate to Recreate (or vice versa) does not trigger a new rollout"
  # cite: kep-3541 | Notes/Constraints/Caveats | "Make a change to .spec.template ... Force a rollout using kubectl rollout restart"
  # cite: upstream-statefulset-facts | Revisions | "Only a change of .spec.template makes a new revision (a strategy-type change does not)."
  # cite: calibration-facts | Upstream StatefulSet controller, v1.37 (KEP-3541 alpha, PR #137187) | "In-progress reason RecreateInProgress and a RecreateStarted event: not found in public sources for the merged code."

  Background:
    Given a StatefulSet "web" with 3 replicas and update strategy "RollingUpdate"
    And all pods of "web" are running and ready

  # covers: R18 R22
  Scenario: changing only the strategy type starts no rollout
    When the update revision of "web" is remembered as "before"
    And the update strategy of "web" is changed to "Recreate"
    Then for 3 seconds no pod of "web" is created or deleted
    And the update revision of "web" is the one remembered as "before"
    And no ControllerRevision of "web" was created since the first change

  # covers: R21
  Scenario: kubectl rollout restart starts a Recreate
    When the update strategy of "web" is changed to "Recreate"
    And "web" is restarted with kubectl rollout restart
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
