@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: What starts a Recreate
  Only a change of .spec.template makes a new revision
  (upstream-statefulset-facts, "Revisions"): switching the strategy type
  alone starts no rollout, while `kubectl rollout restart`, which stamps the
  template with kubectl.kubernetes.io/restartedAt, does.

  Background:
    Given a StatefulSet "web" with 3 replicas and update strategy "RollingUpdate"
    And all pods of "web" are running and ready

  Scenario: changing only the strategy type starts no rollout
    When the update strategy of "web" is changed to "Recreate"
    Then for 3 seconds no pod of "web" is created or deleted

  Scenario: kubectl rollout restart starts a Recreate
    When the update strategy of "web" is changed to "Recreate"
    And "web" is restarted with kubectl rollout restart
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
