@base @scaling
Feature: Ordered creation, reverse-ordered scale-down, and Parallel scaling
  StatefulSet concepts, "Deployment and Scaling Guarantees": "For a
  StatefulSet with N replicas, when Pods are being deployed, they are created
  sequentially, in order from {0..N-1}." "When Pods are being deleted, they
  are terminated in reverse order, from {N-1..0}." "Before a scaling operation
  is applied to a Pod, all of its predecessors must be Running and Ready."
  The same section's example: "If web-0 should fail, after web-1 is Running
  and Ready, but before web-2 is launched, web-2 will not be launched until
  web-0 is successfully relaunched and becomes Running and Ready."
  Only the predecessors of a pod must be ready for it to go: the pod being
  removed may itself be unready. "Parallel Pod Management": "Parallel pod management tells the StatefulSet
  controller to launch or terminate all Pods in parallel, and to not wait for
  Pods to become Running and Ready or completely terminated prior to launching
  or terminating another Pod." With minReadySeconds, upstream's controller
  waits for more than readiness (upstream-statefulset-facts, "Reconcile order
  (one sync)"): "a pod that is terminating, not Running+Ready, or not
  Available for minReadySeconds blocks everything after it". "Replicas":
  scaling happens "via kubectl scale statefulset statefulset --replicas=X"
  or by "a HorizontalPodAutoscaler (or any similar API for horizontal
  scaling)", both of which go through the set's scale subresource, which
  upstream's conformance test E14 (coverage/upstream-tests.yaml) reads and
  writes. And "applying that manifest overwrites the manual scaling that you
  previously did": `kubectl apply -f` puts back every field its manifest
  sets that someone changed since, replicas too, and the controller follows.

  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "For a StatefulSet with N replicas, when Pods are being deployed, they are created sequentially, in order from {0..N-1}."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "When Pods are being deleted, they are terminated in reverse order, from {N-1..0}."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "If web-0 should fail, after web-1 is Running and Ready, but before web-2 is launched, web-2 will not be launched until web-0 is successfully relaunched and becomes Running and Ready."
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "a pod that is terminating, not Running+Ready, or not Available for minReadySeconds blocks everything after it"
  # cite: statefulset-concepts | Replicas | "via kubectl scale statefulset statefulset --replicas=X"
  # cite: statefulset-concepts | Replicas | "a HorizontalPodAutoscaler (or any similar API for horizontal scaling)"
  # cite: statefulset-concepts | Replicas | "applying that manifest overwrites the manual scaling that you previously did"
  # cite: statefulset-concepts | Parallel Pod Management | "Parallel pod management tells the StatefulSet controller to launch or terminate all Pods in parallel, and to not wait for Pods to become Running and Ready or completely terminated prior to launching or terminating another Pod."

  # covers: R46 C2 C14 C16 E11
  Scenario: OrderedReady creates in order, each after its predecessors are ready
    Given a StatefulSet "web" with 3 replicas and pod management policy "OrderedReady"
    And all pods of "web" are running and ready
    Then pods were created in the order web-0, web-1, web-2
    And every pod of "web" was created only after its predecessors were running and ready

  Scenario: OrderedReady creation waits until each predecessor is available
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and min ready seconds "2"
    And all pods of "web" are running and ready
    Then pods were created in the order web-0, web-1, web-2
    And every pod of "web" was created only after its predecessors had been ready for minReadySeconds

  Scenario: OrderedReady scale-up waits while an earlier pod is terminating
    Given a StatefulSet "web" with 1 replica, pod management policy "OrderedReady" and termination taking "3" seconds
    And all pods of "web" are running and ready
    When pod "web-0" is deleted
    Then within 30 seconds pod "web-0" of "web" is terminating and the controller has seen it
    When "web" is scaled to 2 replicas
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And every pod of "web" was created only after its predecessors were running and ready

  # covers: C16 C18 E11
  Scenario: OrderedReady scale-up waits while an earlier pod is not ready
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and readiness held by the readiness gate
    Then within 30 seconds 1 pod of "web" exists at the update revision
    When pod "web-0" is made ready
    Then within 30 seconds 2 pods of "web" exist at the update revision
    When pod "web-0" is made not ready
    And pod "web-1" is made ready
    Then for 3 seconds no pod of "web" is created or deleted
    When pod "web-0" is made ready
    Then within 30 seconds 3 pods of "web" exist at the update revision
    And every pod of "web" was created only after its predecessors were running and ready

  # covers: R52 C15 C17 E11
  Scenario: OrderedReady scales down one at a time, highest ordinal first
    Given a StatefulSet "web" with 4 replicas, pod management policy "OrderedReady" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds all 1 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-3, web-2, web-1
    And pods web-3, web-2, web-1 were each gone before the next one was deleted

  # covers: C16 C19 E11
  Scenario: OrderedReady scale-down waits while a predecessor is not ready
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When pod "web-0" is made not ready
    And "web" is scaled to 2 replicas
    Then for 3 seconds no pod of "web" is created or deleted
    When pod "web-0" is made ready
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready

  # covers: E11
  Scenario: OrderedReady with every pod unready, scaled to 0, deletes nothing until they are ready again
    # rejects: a controller that deletes the highest unready pod although its predecessors are unready too (as if every unready condemned pod were the first unhealthy one), or that tears the set down at once; once web-0 and web-1 are ready again, the still unready web-2 is the first unhealthy pod and goes first (upstream's processCondemned)
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When pod "web-0" is made not ready
    And pod "web-1" is made not ready
    And pod "web-2" is made not ready
    Then within 30 seconds the status of "web" reports 3 replicas, 0 of them ready
    When the checks that follow look only at what happens from here on
    And "web" is scaled to 0 replicas
    Then within 30 seconds "web" has observed its latest generation
    And for 5 seconds no pod of "web" is created or deleted
    And pod "web-2" was neither deleted nor replaced
    When pod "web-0" is made ready
    And pod "web-1" is made ready
    Then within 60 seconds all 0 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0

  Scenario: OrderedReady scale-down removes a pod that is itself not ready
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and readiness held by the readiness gate
    When pods web-0, web-1, web-2 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    When pod "web-2" is made not ready
    And "web" is scaled to 2 replicas
    Then within 30 seconds all 2 pods of "web" run the update revision and are ready

  # covers: C21
  Scenario: Parallel scales down without waiting
    Given a StatefulSet "web" with 4 replicas, pod management policy "Parallel" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds all 1 pods of "web" run the update revision and are ready
    And pods of "web" were deleted without waiting for each other

  # covers: C21
  Scenario: Parallel creates without waiting for readiness
    Given a StatefulSet "web" with 3 replicas, pod management policy "Parallel" and readiness held by the readiness gate
    Then within 30 seconds 3 pods of "web" exist at the update revision

  Scenario: Parallel creates the other pods while a failed pod is still being removed
    Given a StatefulSet "web" with 1 replica and pod management policy "Parallel"
    And all pods of "web" are running and ready
    And pod "web-0" has the finalizer "kepspec.io/hold"
    When pod "web-0" fails
    Then within 30 seconds pod "web-0" is terminating
    When "web" is scaled to 3 replicas
    Then within 30 seconds pod "web-2" of "web" runs the update revision and is ready
    And within 30 seconds pod "web-1" of "web" runs the update revision and is ready
    When the finalizer "kepspec.io/hold" is removed from pod "web-0"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready

  # covers: C50
  Scenario: applying the manifest again overwrites a manual scale
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When "web" is scaled to 4 replicas through its scale subresource
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    When the manifest of "web" is applied again, as kubectl apply does
    Then the StatefulSet "web" has "/spec/replicas" set to "2"
    And within 60 seconds the status of "web" reports 2 replicas, 2 of them ready
    And pods were deleted in the order web-3, web-2

  # covers: E14
  Scenario: the scale subresource reads and sets the replicas
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    Then the scale subresource of "web" reports 2 replicas and the selector "app=web"
    When "web" is scaled to 3 replicas through its scale subresource
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the scale subresource of "web" reports 3 replicas and the selector "app=web"
