@faults @isolated @embedded-only
Feature: Rollouts keep their guarantees when the controller's watches break
  Watches end: connections drop, and an apiserver that compacted its history
  closes them with 410 Expired so the client must list again. A controller
  acting on a view rebuilt after such a gap must still never mix revisions in
  a Recreate rollout (KEP-3541) nor exceed maxUnavailable (KEP-961).

  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario: Recreate with every watch dropped after 300 ms
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    And every watch of the controller is dropped after 300 milliseconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every injected fault was triggered

  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario: Recreate with every watch closed with 410 after 300 ms
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "Parallel" and a volume claim "data"
    And all pods of "web" are running and ready
    And every watch of the controller is closed with 410 after 300 milliseconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every injected fault was triggered

  @kep-961 @gate-MaxUnavailableStatefulSet
  Scenario: maxUnavailable 2 with every watch closed with 410 after 300 ms
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    And every watch of the controller is closed with 410 after 300 milliseconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And every injected fault was triggered
