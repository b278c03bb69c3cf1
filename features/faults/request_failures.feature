@faults @isolated @embedded-only
Feature: Rollouts converge when the controller's writes fail
  The API conventions let any write fail: 409 Conflict on a stale
  resourceVersion, 500 and 503 from a struggling apiserver, 429 when
  throttled. A controller retries from what it observes; KEP-3541 and KEP-961
  rollouts still converge and keep their guarantees. The failures are chosen
  deterministically (a seeded fifth of the controller's writes). And
  "Upstream writes StatefulSet status even when an action of the sync failed"
  (the fix of kubernetes/kubernetes#108837, pinned by the integration test
  TestStatefulSetStatusWithPodFail), so the status keeps counting what exists
  while a write keeps failing.

  Events are the exception: client-go's recorder, which upstream's controller
  writes its events with, does not try an event again once the apiserver has
  answered, whatever the code (k8s.io/client-go/tools/record/event.go,
  recordEvent, which logs that it will not retry a rejected event), and KEP-3541
  emits RecreateStarted only on the first entry to the deletion phase. So a
  refused RecreateStarted may be lost for good: here it is recorded at most
  once, where a fault-free Recreate requires it exactly once.

  # cite: calibration-facts | Upstream StatefulSet controller, v1.37 (KEP-3541 alpha, PR #137187) | "Upstream writes StatefulSet status even when an action of the sync failed"

  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario Outline: Recreate converges with 20% of the controller's writes failing with <code>
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    And 20% of the controller's writes fail with code <code>
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the event "RecreateStarted" was recorded for "web" at most 1 time
    And every injected fault was triggered

    Examples:
      | code |
      | 500  |
      | 409  |

  @kep-961 @gate-MaxUnavailableStatefulSet
  Scenario Outline: a maxUnavailable rolling update converges with 20% of the controller's writes failing with <code>
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    And 20% of the controller's writes fail with code <code>
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And every injected fault was triggered

    Examples:
      | code |
      | 500  |
      | 409  |

  Scenario: an OrderedReady rolling update converges when its second write fails with 503
    Given a StatefulSet "web" with 3 replicas and update strategy "RollingUpdate"
    And all pods of "web" are running and ready
    And the controller's second write fails with code 503
    And every 3th write of the controller is delayed by 200 milliseconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pod of "web" unavailable
    And every injected fault was triggered

  # covers: I5
  @base
  Scenario: the status counts the pods that exist while creating the next one keeps failing
    A controller that returns before writing status leaves readers, kubectl
    and the KEP's conditions with a stale count.
    Given every time the controller creates pod "web-2", the request fails with code 500
    When a StatefulSet "web" with 3 replicas is submitted
    Then within 30 seconds the status of "web" reports 2 replicas, 2 of them ready
    And every injected fault was triggered
