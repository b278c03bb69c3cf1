@kep-961 @max-unavailable @gate-MaxUnavailableStatefulSet
Feature: maxUnavailable while the set scales: down during a rollout, and before it has fully scaled up
  KEP-961's Beta criteria name what its first releases got wrong. The e2e test
  it asks for sets both minReadySeconds and maxUnavailable, "checking for a
  correct rollout specially when scaling down during a rollout"
  (issue #112307). The scale-down itself: "the controller should first wait
  for the predecessor condemned pods to become available before deleting them
  and delete the pod with the highest ordinal number" (the `firstUnhealthyPod`
  fix), and bugs #123911, #112307, #119234 and #123918 "should be fixed before
  promotion of maxUnavailable." Issue #123918 is an OrderedReady set with
  minReadySeconds whose scale-down never finished. And for OrderedReady,
  maxUnavailable "is not applied until the StatefulSet had a chance to fully
  scale up": a template change that reaches an OrderedReady set while it is
  still creating its pods deletes nothing for the update until every replica
  exists and is ready.

  Where sources disagree: the StatefulSet concepts page says "Before a
  scaling operation is applied to a Pod, all of its predecessors must be
  Running and Ready", and KEP-961's Beta sentence above has the controller
  wait for the predecessor condemned pods; read so, web-3 would wait for
  web-2. Upstream's code deletes it: in processCondemned
  (pkg/controller/statefulset/stateful_set_control.go, kubernetes v1.37.0) a
  condemned pod is held back only when it is itself not available and is not
  the first unhealthy pod, and the first unhealthy pod is sought among the
  replicas and then among the condemned pods from the lowest ordinal up, so
  the healthy web-3 goes, then web-2, the first unhealthy one, highest first.
  The spec follows upstream's code here, since waiting would leave the
  scale-down hanging for as long as web-2 stays unready; a controller that
  follows the documentation's words fails the second scenario. It declares
  deviation condemned-waits-for-predecessors (the kep-literal target does),
  and the scenario tagged with it checks that reading: nothing goes while
  web-2 is unready, then web-3 and web-2, in that order.

  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready."

  # cite: kep-961 | e2e tests | "checking for a correct rollout specially when scaling down during a rollout"
  # cite: kep-961 | Beta | "the controller should first wait for the predecessor condemned pods to become available before deleting them and delete the pod with the highest ordinal number"
  # cite: kep-961 | Beta | "should be fixed before promotion of maxUnavailable."
  # cite: kep-961 | Beta | "is not applied until the StatefulSet had a chance to fully scale up"

  # covers: M24
  Scenario: a Parallel set with minReadySeconds and maxUnavailable 2 scaled from 6 to 3 during a rollout
    # rejects: a controller that counts the budget over the old replica count, or loses condemned pods from its count, and so takes more than 2 pods down
    Given a StatefulSet "web" with 6 replicas, pod management policy "Parallel", max unavailable "2" and min ready seconds "2"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds 2 pods of "web" exist at the update revision
    When "web" is scaled to 3 replicas
    Then within 60 seconds the pods of "web" are web-0, web-1, web-2
    And within 60 seconds all 3 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable

  # covers: M25 M26
  @deviates-condemned-waits-for-predecessors
  Scenario: OrderedReady with minReadySeconds scaled from 4 to 2 while the condemned web-2 is not ready: web-3 goes first, then web-2
    # rejects: a controller whose first unhealthy pod ignores the condemned pods, so it waits forever for web-2 (the scale-down hang of #123918), or that deletes web-2 before web-3
    Given a StatefulSet "web" with 4 replicas, pod management policy "OrderedReady", min ready seconds "1" and readiness held by the readiness gate
    When pods web-0, web-1, web-2, web-3 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    When pod "web-2" is made not ready
    And "web" is scaled to 2 replicas
    Then within 60 seconds the pods of "web" are web-0, web-1
    And pods were deleted in the order web-3, web-2
    And pods web-3, web-2 were each gone before the next one was deleted

  @deviation-condemned-waits-for-predecessors
  Scenario: a target that waits for the predecessors deletes nothing while web-2 is not ready, then web-3 and web-2
    # rejects: a controller that deletes web-3 while web-2 is unready, or never deletes once web-2 is ready again
    Given a StatefulSet "web" with 4 replicas, pod management policy "OrderedReady", min ready seconds "1" and readiness held by the readiness gate
    When pods web-0, web-1, web-2, web-3 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    When pod "web-2" is made not ready
    And "web" is scaled to 2 replicas
    Then for 3 seconds no pod of "web" is created or deleted
    When pod "web-2" is made ready
    Then within 60 seconds the pods of "web" are web-0, web-1
    And pods were deleted in the order web-3, web-2
    And pods web-3, web-2 were each gone before the next one was deleted

  # covers: M27
  Scenario: OrderedReady with maxUnavailable 2 deletes nothing for an update until it has fully scaled up
    # rejects: a controller that applies the budget while an OrderedReady set is still creating its pods
    Given a StatefulSet "web" with 4 replicas, pod management policy "OrderedReady", max unavailable "2" and readiness held by the readiness gate
    When pods web-0, web-1 are made ready in turn as they appear at the update revision
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When the environment variable "VERSION" of "web" is set to "2"
    And pod "web-2" is made ready
    Then within 30 seconds 1 pod of "web" exists at the update revision
    And for 3 seconds no pod of "web" is created or deleted
    When pods web-3, web-1, web-2, web-0 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 2 pods of "web" unavailable
