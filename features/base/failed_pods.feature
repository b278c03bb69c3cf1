@base @failed-pods
Feature: Failed pods are replaced
  upstream-statefulset-facts, "Reconcile order (one sync)": "Failed or
  Succeeded pods are deleted and recreated." A pod that its node reports
  Failed (for example after an eviction) does not stay failed, nor one
  reported Succeeded. A pod that is being deleted is another matter:
  upstream's integration test TestDeletingAndTerminatingPods holds one with
  a finalizer and expects it replaced only once it is gone (a new pod of the
  same name cannot exist before), and then replaced without anyone's help.

  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "Failed or Succeeded pods are deleted and recreated."

  # covers: C2
  Scenario: a Failed pod is deleted and created again
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When pod "web-1" fails
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready

  # covers: E13
  Scenario: a pod its node rejects for a host port in use is deleted and created again until it runs
    # rejects: a controller that leaves a rejected (Failed) pod in place, so the set never runs once the port is free
    Upstream's conformance test Should recreate evicted statefulset: a pod
    holds a host port on a node, and the set's pods ask for the same port on
    that node (spec.nodeName, past the scheduler). The node's kubelet
    rejects the set's pod at admission, phase Failed with reason NodePorts
    (the kubelet's predicate admit handler); the controller deletes it and
    creates it again, and once the port is free the pod runs.
    Given a pod "port-holder" holding host port 21017 runs on a schedulable node
    When a StatefulSet "web" with 1 replica whose pods ask for host port 21017 on the node of pod "port-holder" is submitted
    Then within 60 seconds pod "web-0" was rejected by its node with reason "NodePorts" and deleted
    When pod "port-holder" is deleted
    Then within 60 seconds pod "web-0" of "web" runs the update revision and is ready

  # covers: I3
  Scenario: a Succeeded pod is deleted and created again
    # rejects: a controller that replaces Failed pods only, leaving a Succeeded one in place
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When pod "web-1" succeeds
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready

  # covers: I3
  Scenario: a pod held by a finalizer while it is deleted comes back once it is gone
    # rejects: a controller that never looks at the set again once the terminating pod is finally gone
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    And pod "web-1" has the finalizer "kepspec.io/hold"
    When pod "web-1" is deleted
    Then within 30 seconds pod "web-1" is terminating
    And within 30 seconds the status of "web" reports 2 replicas, 1 of them ready
    When the finalizer "kepspec.io/hold" is removed from pod "web-1"
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
