@base @status
Feature: The status subresource stores what is written through it
  Upstream's conformance test should validate Statefulset Status endpoints
  (test/e2e/apps/statefulset.go) reads a StatefulSet's /status, adds a
  condition with an update of the status subresource, then merge-patches
  the conditions through it, and waits each time for a watch to deliver the
  written condition. The controller keeps writing status meanwhile; the
  check is that each write was stored and watched, not that it lasts.

  # covers: E16
  Scenario: a condition added by an update and one merge-patched through the status subresource both reach a watch
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    When the condition "StatusUpdate" with reason "E2E" is added to the status of "web" through its status subresource
    Then within 10 seconds a watch of "web" saw the condition "StatusUpdate"
    When the status of "web" is patched through its status subresource to the condition "StatusPatched"
    Then within 10 seconds a watch of "web" saw the condition "StatusPatched"
    And within 30 seconds all 1 pods of "web" run the update revision and are ready
