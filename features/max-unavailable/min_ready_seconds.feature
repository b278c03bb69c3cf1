@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet
Feature: a pod counts as unavailable until it has been ready for minReadySeconds
  KEP-961, "Implementation": "instead of checking for healthy pods in the part
  of the code that decides what is a unavailablePod, we check for
  isUnavailable, so that minReadySeconds is respected." A replacement pod that
  is Ready but not yet Available (ready for less than minReadySeconds)
  therefore still uses the budget. Kubernetes issues #112307 and #119234
  (upstream-statefulset-facts, "Feature history worth a scenario"): Parallel
  with maxUnavailable ignored minReadySeconds and availableReplicas fell from
  5 to 0; fixed by #130909.

  # cite: kep-961 | Implementation | "instead of checking for healthy pods in the part of the code that decides what is a unavailablePod, we check for isUnavailable, so that minReadySeconds is respected."

  # covers: M11 M43
  Scenario: Parallel with maxUnavailable 1 and minReadySeconds 2
    Given a StatefulSet "web" with 3 replicas, pod management policy "Parallel", max unavailable "1" and min ready seconds "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 3 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable
