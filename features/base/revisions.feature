@base @revisions
Feature: Revisions: rollback reuses the earlier one, completion promotes the update revision
  upstream-statefulset-facts, "Revisions": "Only a change of .spec.template
  makes a new revision (a strategy-type change does not)." "Rolling back to an
  earlier template reuses the old ControllerRevision". "Status": "Rollout
  complete when updated = ready = replicas = spec.replicas: then
  currentRevision := updateRevision." "Reconcile order (one sync)": every sync
  will "write observedGeneration", so it follows the generation.

  # cite: upstream-statefulset-facts | Revisions | "Only a change of .spec.template makes a new revision (a strategy-type change does not)."
  # cite: upstream-statefulset-facts | Revisions | "Rolling back to an earlier template reuses the old ControllerRevision"
  # cite: upstream-statefulset-facts | Status | "Rollout complete when updated = ready = replicas = spec.replicas: then currentRevision := updateRevision."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "Compute current/update revisions, write observedGeneration, revisions, collisionCount and counts."

  # covers: E5
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
