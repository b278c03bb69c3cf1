@base @defaults
Feature: A set that leaves podManagementPolicy or replicas unset gets the defaults
  StatefulSet concepts, "OrderedReady Pod Management": "OrderedReady pod
  management is the default for StatefulSets. It implements the behavior
  described above.", that is "Deployment and Scaling Guarantees": "For a
  StatefulSet with N replicas, when Pods are being deployed, they are created
  sequentially, in order from {0..N-1}." "Before a scaling operation is
  applied to a Pod, all of its predecessors must be Running and Ready."
  "Replicas": ".spec.replicas is an optional field that specifies the number
  of desired Pods. It defaults to 1."

  "Minimum ready seconds": "This field defaults to 0 (the Pod will be
  considered available as soon as it is ready)." No step waits on
  availability for that one: the status check of every rest does (wherever
  a set's pods do not change for 5 seconds, its status must say exactly what
  they are by the end, availableReplicas included, counted with the
  minReadySeconds the spec names, 0 when it names none). The scenario below
  rests its pods for 6 seconds once they are ready, and ends the rest with a
  change, so that the rest is judged.

  The sets below never name the field in question; readiness is held by a
  readiness gate so that waiting for a predecessor is visible.

  # cite: statefulset-concepts | OrderedReady Pod Management | "OrderedReady pod management is the default for StatefulSets. It implements the behavior described above."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "For a StatefulSet with N replicas, when Pods are being deployed, they are created sequentially, in order from {0..N-1}."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "Before a scaling operation is applied to a Pod, all of its predecessors must be Running and Ready."
  # cite: statefulset-concepts | Replicas | ".spec.replicas is an optional field that specifies the number of desired Pods. It defaults to 1."
  # cite: statefulset-concepts | Minimum ready seconds | "This field defaults to 0 (the Pod will be considered available as soon as it is ready)."

  # covers: C20
  Scenario: a set that names no podManagementPolicy creates its pods in order, each after its predecessors are ready
    # rejects: a controller (or an apiserver default) that treats an unset podManagementPolicy as Parallel, creating web-1 and web-2 while web-0 is not ready
    Given a StatefulSet "web" with 3 replicas and readiness held by the readiness gate
    Then within 30 seconds 1 pod of "web" exists at the update revision
    And for 3 seconds no pod of "web" is created or deleted
    When pod "web-0" is made ready
    Then within 30 seconds 2 pods of "web" exist at the update revision
    And for 3 seconds no pod of "web" is created or deleted
    When pod "web-1" is made ready
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When pod "web-2" is made ready
    Then within 30 seconds all 3 pods of "web" run the update revision and are ready
    And pods were created in the order web-0, web-1, web-2
    And every pod of "web" was created only after its predecessors were running and ready
    And the StatefulSet "web" has "/spec/podManagementPolicy" set to "OrderedReady"

  # covers: C49
  Scenario: a set created without replicas runs exactly one pod
    # rejects: an apiserver that stores no default for spec.replicas together with a controller that reads the missing field as 0 (no pod at all) or as any other count
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    Then the StatefulSet "web" has "/spec/replicas" set to "1"
    And within 30 seconds the status of "web" reports 1 replica, 1 of them ready
    And pod "web-0" has "/spec/hostname" set to "web-0"
    And for 3 seconds no pod of "web" is created or deleted

  # covers: C13
  Scenario: a set that names no minReadySeconds reports its pods available as soon as they are ready
    # rejects: a controller that gives an unset minReadySeconds a value of its own: its status keeps ready pods unavailable through the rest below
    Given a StatefulSet "web" with 2 replicas, pod management policy "Parallel" and readiness held by the readiness gate
    When pods web-0, web-1 are made ready in turn as they appear at the update revision
    Then for 6 seconds no pod of "web" is created or deleted
    When pod "web-1" is made not ready
    Then within 30 seconds the status of "web" reports 2 replicas, 1 of them ready
