@faults @isolated @embedded-only
Feature: Rollouts keep their guarantees when the controller's view is stale
  A controller sees the cluster through watch caches, and a cache can lag
  behind: an apiserver replica that fell behind, a slow informer. Here the
  controller's watches deliver each change late and its cacheable reads answer
  from the past, for a while; reads without a resourceVersion stay consistent,
  as kube-apiserver serves them. Whatever the controller makes of a stale
  view, a Recreate rollout must never mix revisions (KEP-3541), a rolling
  update must never take more pods down than maxUnavailable allows (KEP-961),
  and once the view is current again the rollout completes.

  Where sources disagree: the `RecreateStarted` event counted here comes from
  KEP-3541's pseudo-code; calibration-facts reports it "not found in public
  sources for the merged code" of upstream. The spec states the KEP.

  # cite: calibration-facts | Upstream StatefulSet controller, v1.37 (KEP-3541 alpha, PR #137187) | "In-progress reason RecreateInProgress and a RecreateStarted event: not found in public sources for the merged code."

  @kep-3541 @gate-StatefulSetRecreateStrategy @slow
  Scenario: Recreate while the controller's view lags 25 resource versions
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller's view lags 25 resource versions behind for 15 seconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the observedGeneration of "web" never went back
    And every injected fault was triggered

  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario: Parallel Recreate while the controller's view lags one second
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", pod management policy "Parallel" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller's view lags 1000 milliseconds behind for 15 seconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the observedGeneration of "web" never went back
    And every injected fault was triggered

  @kep-961 @gate-MaxUnavailableStatefulSet @slow
  Scenario: maxUnavailable 2 while the controller's view lags 25 resource versions
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    And the controller's view lags 25 resource versions behind for 15 seconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And the observedGeneration of "web" never went back
    And every injected fault was triggered

  @kep-961 @gate-MaxUnavailableStatefulSet @slow
  Scenario: maxUnavailable 2 while the controller's view lags one second
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and max unavailable "2"
    And all pods of "web" are running and ready
    And the controller's view lags 1000 milliseconds behind for 15 seconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
    And the observedGeneration of "web" never went back
    And every injected fault was triggered

  # covers: R17 E17 E18
  @kep-3541 @gate-StatefulSetRecreateStrategy
  Scenario: a controller restarted onto an apiserver cache from the past does not act on it
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    And within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the controller restarts seeing the cluster as it was right after the last change to "web", for 10 seconds
    Then for 3 seconds no pod of "web" is created or deleted
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
    And no Warning event was recorded for "web"
    And the observedGeneration of "web" never went back
    And "web" reports its current revision equal to its update revision
    And every injected fault was triggered

  # A pod the set adopted and whose labels then went is the set's to release
  # (upstream's ClaimObject, pkg/controller/controller_ref_manager.go), never
  # to change or delete: upstream's e2e test "should adopt matching orphans and
  # release non-matching pods" (test/e2e/apps/statefulset.go) strips the
  # labels of a pod the set just adopted again. Here the controller's pod
  # informer lags two seconds while its StatefulSet informer is current, and a
  # change to the set's metadata starts a sync while the pod cache still shows
  # the orphan from before the adoption.
  # rejects: a controller that does not count its adoptions among its own writes and keeps what its adoption patch returned (the pod with its labels gone), then writes the pod's identity back and deletes it as a pod of no revision
  @adoption
  Scenario: a pod whose labels go right after its adoption is released, not changed, while the controller's pod cache lags
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    And the controller's view of pods lags 2000 milliseconds behind for 20 seconds
    When the ownerReferences of pod "web-0" are removed
    Then within 30 seconds pod "web-0" is controlled by the StatefulSet "web"
    When the labels of pod "web-0" are removed
    And "web" is changed with this merge patch:
      """
      metadata:
        annotations:
          example.com/note: a change that starts a sync
      """
    Then within 30 seconds pod "web-0" is controlled by nothing
    When the labels of pod "web-0" are restored
    Then within 30 seconds pod "web-0" is controlled by the StatefulSet "web"
    And pod "web-0" was neither deleted nor created again
    And every injected fault was triggered

  # Upstream reads the set again before the first adoption of a sync
  # (RecheckDeletionTimestamp in pkg/controller/controller_ref_manager.go,
  # which getPodsForStatefulSet hands to ClaimPods, stateful_set.go): a set
  # its informer still shows alive may be being deleted, and an orphan
  # adopted then would go with it. Here the controller's StatefulSet informer
  # lags three seconds while its pod informer is current, and the set is held
  # in foreground deletion by its pod's finalizer when an orphan that its
  # selector and name rule match appears: the orphan's watch event starts a
  # sync of the set as the lagging cache still shows it, alive.
  # rejects: a controller that adopts on its cached view of the set alone (the orphan web-3 gets the set being deleted as its controller, and would go with it)
  @adoption
  Scenario: an orphan that appears while its set is being deleted is not adopted, though the controller's view of the set lags
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    And pod "web-0" has the finalizer "kepspec.io/hold"
    And the controller's view of statefulsets lags 3000 milliseconds behind for 20 seconds
    When the StatefulSet "web" is deleted in the foreground
    And a pod "web-3" with the labels of "web" is created
    Then for 5 seconds pod "web-3" keeps the controller the scenario last left it with
    When the finalizer "kepspec.io/hold" is removed from pod "web-0"
    Then every injected fault was triggered
