@base @scaling
Feature: Unready pods do not deadlock scaling
  StatefulSet concepts, "Deployment and Scaling Guarantees": "Before a scaling
  operation is applied to a Pod, all of its predecessors must be Running and
  Ready." A pod's successors are no predecessors: when web-0 is deleted while
  web-1 is not ready, nothing stands before web-0, so it is created again at
  once (upstream's e2e test `should not deadlock when a pod's predecessor
  fails`). upstream-statefulset-facts, "Reconcile order (one sync)": in
  OrderedReady a pod that is "not Running+Ready" blocks "everything after
  it", not what comes before it.

  "Parallel Pod Management": "Parallel pod management tells the StatefulSet
  controller to launch or terminate all Pods in parallel, and to not wait for
  Pods to become Running and Ready or completely terminated prior to
  launching or terminating another Pod." Upstream's conformance test `Burst
  scaling should run to completion even with unhealthy pods` scales a
  Parallel set from 1 to 3 while its pod is unready, and from 3 to 0 while
  every pod is unready.

  Readiness is held by a readiness gate; a pod made not ready stands for
  upstream's broken readiness probe.

  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "a pod that is terminating, not Running+Ready, or not Available for minReadySeconds blocks everything after it."
  # cite: statefulset-concepts | Parallel Pod Management | "Parallel pod management tells the StatefulSet controller to launch or terminate all Pods in parallel, and to not wait for Pods to become Running and Ready or completely terminated prior to launching or terminating another Pod."

  # covers: E3
  Scenario: OrderedReady creates a deleted web-0 again while web-1 is not ready
    # rejects: a controller that, under OrderedReady, waits for every pod it has to be ready before it creates one (web-0 is never created again while web-1 is unready: a deadlock), or that deletes the unready web-1 when web-0 goes missing
    Given a StatefulSet "web" with 2 replicas, pod management policy "OrderedReady" and readiness held by the readiness gate
    When pods web-0 are made ready in turn as they appear at the update revision
    Then within 30 seconds 2 pods of "web" exist at the update revision
    And within 30 seconds the status of "web" reports 2 replicas, 1 of them ready
    When pod "web-0" is deleted
    And pods web-0 are made ready in turn as they appear at the update revision
    Then within 30 seconds the status of "web" reports 2 replicas, 1 of them ready
    And pod "web-1" was neither deleted nor replaced
    When pod "web-1" is made ready
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pod "web-1" was neither deleted nor replaced

  # covers: E12
  Scenario: Parallel scales up past an unready pod and down to zero while every pod is unready
    # rejects: a controller that applies OrderedReady's readiness waits to a Parallel set: it creates no pod after an unready web-0, and deletes no pod while its predecessors are unready (or deletes them one at a time)
    Given a StatefulSet "web" with 1 replica, pod management policy "Parallel", termination taking "2" seconds and readiness held by the readiness gate
    When pods web-0 are made ready in turn as they appear at the update revision
    And pod "web-0" is made not ready
    Then within 30 seconds the status of "web" reports 1 replica, 0 of them ready
    When "web" is scaled to 3 replicas
    Then within 10 seconds 3 pods of "web" exist at the update revision
    When pods web-1, web-2 are made ready in turn as they appear at the update revision
    And pod "web-0" is made ready
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When pod "web-0" is made not ready
    And pod "web-1" is made not ready
    And pod "web-2" is made not ready
    Then within 30 seconds the status of "web" reports 3 replicas, 0 of them ready
    When "web" is scaled to 0 replicas
    Then within 30 seconds the status of "web" reports 0 replicas, 0 of them ready
    And pods of "web" were deleted without waiting for each other
