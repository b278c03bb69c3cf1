@base @adoption
Feature: A StatefulSet adopts matching orphans and releases pods it no longer matches
  upstream-statefulset-facts, "Identity": a StatefulSet's pods carry a
  "Controller ownerReference (controller=true, blockOwnerDeletion=true)."
  Which pods a set controls follows upstream's ControllerRefManager
  (pkg/controller/controller_ref_manager.go, ClaimObject), which the
  StatefulSet controller runs on every sync: an orphan in the set's
  namespace whose labels the selector matches and whose name makes it a
  member of the set is adopted; a pod the set controls that the selector no
  longer matches is released; neither while the set is being deleted. A pod
  another controller controls is left alone, whatever its name and labels,
  and an orphan that is itself being deleted is not adopted.
  The name rule is upstream's isMemberOf (stateful_set_utils.go), the
  filter getPodsForStatefulSet hands to ClaimPods (stateful_set.go): a pod
  the selector matches whose name is not the set's name and an ordinal is
  never adopted. Upstream's e2e test should adopt matching orphans and release
  non-matching pods (test/e2e/apps/statefulset.go) strips a pod's
  ownerReferences, then its labels, then restores them, and waits each time
  for the controller reference to name the set, or nothing.

  The selector is the whole of spec.selector. StatefulSet concepts, "Pod
  Selector": "You must set the .spec.selector field of a StatefulSet to
  match the labels of its .spec.template.metadata.labels." A selector may add
  set-based requirements to its matchLabels (matchExpressions with In, NotIn,
  Exists and DoesNotExist; the Kubernetes documentation's page on labels and
  selectors); upstream's controller reads all of it
  (metav1.LabelSelectorAsSelector in getPodsForStatefulSet).

  # cite: upstream-statefulset-facts | Identity | "Controller ownerReference (controller=true, blockOwnerDeletion=true)."
  # cite: statefulset-concepts | Pod Selector | "You must set the .spec.selector field of a StatefulSet to match the labels of its .spec.template.metadata.labels."

  # covers: E2
  Scenario: an orphaned pod is adopted again, released when its labels go, and adopted when they return
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    Then within 10 seconds pod "web-0" is controlled by the StatefulSet "web"
    When the ownerReferences of pod "web-0" are removed
    Then within 30 seconds pod "web-0" is controlled by the StatefulSet "web"
    When the labels of pod "web-0" are removed
    Then within 30 seconds pod "web-0" is controlled by nothing
    When the labels of pod "web-0" are restored
    Then within 30 seconds pod "web-0" is controlled by the StatefulSet "web"
    And pod "web-0" was neither deleted nor created again

  # covers: E28
  Scenario: a re-adopted pod's claim is deleted with the set under whenDeleted Delete
    Given a StatefulSet "web" with 3 replicas, retention policy "Delete/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When the ownerReferences of pod "web-2" are removed
    Then within 30 seconds pod "web-2" is controlled by the StatefulSet "web"
    When the StatefulSet "web" is deleted
    Then within 60 seconds the PersistentVolumeClaim "data-web-0" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-1" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-2" is gone

  # covers: E29
  Scenario: a re-adopted pod is scaled down with its claim under whenScaled Delete
    Given a StatefulSet "web" with 3 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    When the ownerReferences of pod "web-2" are removed
    Then within 30 seconds pod "web-2" is controlled by the StatefulSet "web"
    When "web" is scaled to 1 replica
    Then within 60 seconds the PersistentVolumeClaim "data-web-2" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-1" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-0" exists
    And pods were deleted in the order web-2, web-1

  Scenario: a pod the selector matches, named outside the set, is not adopted
    # rejects: a controller that adopts by selector alone (web-debug would then go with the set's cascading deletion)
    Given a StatefulSet "web" with 1 replica
    And all pods of "web" are running and ready
    When a pod "web-debug" with the labels of "web" is created
    Then for 3 seconds pod "web-debug" is controlled by nothing
    And pod "web-0" was neither deleted nor created again


  Scenario: a selector with set-based requirements controls its pods and rolls them out
    # rejects: a controller that evaluates a set-based requirement wrongly (NotIn taken as In, say) and refuses the set or drops pods its selector matches
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        serviceName: web
        selector:
          matchLabels: {app: web}
          matchExpressions:
            - {key: tier, operator: In, values: [backend, cache]}
            - {key: track, operator: NotIn, values: [canary]}
            - {key: app, operator: Exists}
            - {key: debug, operator: DoesNotExist}
        template:
          metadata:
            labels: {app: web, tier: backend, track: stable}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    Then within 10 seconds pod "web-1" is controlled by the StatefulSet "web"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And at no moment were more than 1 pods of "web" unavailable

  Scenario: a pod named like a replica that another controller controls is left alone
    # rejects: a controller that takes a pod another controller controls for its own (it deletes web-2, above the replica count, as a pod to scale down, or rolls it out)
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When a ConfigMap "keeper" is created
    And a pod "web-2" with the labels of "web" and the ConfigMap "keeper" as its controller is created
    And the checks that follow look only at what happens from here on
    And the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And for 5 seconds pod "web-2" keeps the controller the scenario last left it with
    And pod "web-2" was neither deleted nor created again

  Scenario: a pod whose labels go while its set is being deleted is not released
    # rejects: a controller that releases pods while its set is being deleted (web-1 loses its controller reference and outlives the set's foreground deletion)
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    And pod "web-1" has the finalizer "kepspec.io/hold"
    When the StatefulSet "web" is deleted in the foreground
    Then within 30 seconds pod "web-1" is terminating
    When the labels of pod "web-1" are removed
    Then for 5 seconds pod "web-1" keeps the controller the scenario last left it with
    When the finalizer "kepspec.io/hold" is removed from pod "web-1"

  Scenario: an orphan that is being deleted is not adopted
    # rejects: a controller that adopts an orphan that is being deleted (web-1, held by its finalizer, gets the set as its controller again)
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    And pod "web-1" has the finalizer "kepspec.io/hold"
    When pod "web-1" is deleted
    Then within 30 seconds pod "web-1" is terminating
    When the ownerReferences of pod "web-1" are removed
    Then for 5 seconds pod "web-1" keeps the controller the scenario last left it with
    When the finalizer "kepspec.io/hold" is removed from pod "web-1"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
