@kep-961 @skew @isolated @embedded-only
Feature: maxUnavailable when a component has the gate off
  KEP-961, "Version Skew Strategy" and "Upgrade / Downgrade Strategy": with
  MaxUnavailableStatefulSet off in the controller, "maxUnavailable" is
  ignored and a rolling update takes one pod at a time; with the gate off in
  the apiserver, a new value is dropped on write, while a value already
  stored is kept (upstream-statefulset-facts, "Validation").

  Scenario: controller gate off: maxUnavailable 3 behaves as 1
    Given the controller runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  Scenario: apiserver gate off: a new maxUnavailable is dropped
    Given the apiserver runs with feature gate "MaxUnavailableStatefulSet" off
    And a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    Then the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" unset
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable

  Scenario: a stored maxUnavailable survives the apiserver gate going off
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "3"
    And all pods of "web" are running and ready
    When the apiserver restarts with feature gate "MaxUnavailableStatefulSet" off
    And the environment variable "VERSION" of "web" is set to "2"
    Then the StatefulSet "web" has "/spec/updateStrategy/rollingUpdate/maxUnavailable" set to "3"
    And within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 3 pods of "web" unavailable
