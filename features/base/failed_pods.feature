@base @failed-pods
Feature: Failed pods are replaced
  upstream-statefulset-facts, "Reconcile order" 4: "Failed or Succeeded
  pods are deleted and recreated" — a pod that its node reports Failed (for
  example after an eviction) does not stay failed.

  Scenario: a Failed pod is deleted and created again
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When pod "web-1" fails
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And no two pods of "web" ever existed for one ordinal
