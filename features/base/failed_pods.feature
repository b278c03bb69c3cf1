@base @failed-pods
Feature: Failed pods are replaced
  upstream-statefulset-facts, "Reconcile order (one sync)": "Failed or
  Succeeded pods are deleted and recreated." A pod that its node reports
  Failed (for example after an eviction) does not stay failed.

  # cite: upstream-statefulset-facts.md | Reconcile order (one sync) | "Failed or Succeeded pods are deleted and recreated."

  # covers: C2 E13
  Scenario: a Failed pod is deleted and created again
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When pod "web-1" fails
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And no two pods of "web" ever existed for one ordinal
