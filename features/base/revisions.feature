@base @revisions
Feature: Revisions: rollback reuses the earlier one, completion promotes the update revision
  upstream-statefulset-facts, "Revisions": only a change of .spec.template
  makes a new ControllerRevision; "rolling back to an earlier template reuses
  the old ControllerRevision"; "Status": when the rollout completes,
  currentRevision := updateRevision, and observedGeneration follows the
  generation.

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
