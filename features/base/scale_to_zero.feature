@base @scaling
Feature: Scaling to zero and back
  StatefulSet concepts, "Limitations": "To achieve ordered and graceful
  termination of the pods in the StatefulSet, it is possible to scale the
  StatefulSet down to 0 prior to deletion." Scaling to zero is an ordinary
  scale-down, so "Deployment and Scaling Guarantees" holds down to the last
  pod: "When Pods are being deleted, they are terminated in reverse order,
  from {N-1..0}." "Before a Pod is terminated, all of its successors must be
  completely shutdown."

  Scaled up again, the set brings back the same identities ("StatefulSets":
  each pod "has a persistent identifier that it maintains across any
  rescheduling"), each with its own storage ("Stable Storage": "When a Pod is
  (re)scheduled onto a node, its volumeMounts mount the PersistentVolumes
  associated with its PersistentVolume Claims."), named as
  upstream-statefulset-facts, "Identity", says: "Labels
  statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index;
  spec.hostname = pod name, spec.subdomain = serviceName." Upstream's e2e
  test `should provide basic identity` restarts a set this way (scale to 0,
  then back).

  The status follows every step ("Status": "replicas: pods that exist
  (including terminating); readyReplicas: Running and Ready"), as upstream's
  integration test TestSpecReplicasChange checks through 2, 3, 0 and 2
  replicas and then a template change, whose generation the controller must
  report: "Reconcile order (one sync)": "Compute current/update revisions,
  write observedGeneration, revisions, collisionCount and counts."

  # cite: statefulset-concepts | Limitations | "To achieve ordered and graceful termination of the pods in the StatefulSet, it is possible to scale the StatefulSet down to 0 prior to deletion."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "When Pods are being deleted, they are terminated in reverse order, from {N-1..0}."
  # cite: statefulset-concepts | Deployment and Scaling Guarantees | "Before a Pod is terminated, all of its successors must be completely shutdown."
  # cite: statefulset-concepts | StatefulSets | "each has a persistent identifier that it maintains across any rescheduling."
  # cite: statefulset-concepts | Stable Storage | "When a Pod is (re)scheduled onto a node, its volumeMounts mount the PersistentVolumes associated with its PersistentVolume Claims."
  # cite: upstream-statefulset-facts | Identity | "Labels statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index; spec.hostname = pod name, spec.subdomain = serviceName."
  # cite: upstream-statefulset-facts | Status | "replicas: pods that exist (including terminating); readyReplicas: Running and Ready"
  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "Compute current/update revisions, write observedGeneration, revisions, collisionCount and counts."

  # covers: C9
  Scenario: OrderedReady scales to zero one pod at a time, web-0 last
    # rejects: a controller that tears the set down at once when replicas reaches 0 (web-2, web-1 and web-0 deleted together), or one that never deletes the last pod
    Given a StatefulSet "web" with 3 replicas, pod management policy "OrderedReady" and termination taking "1" seconds
    And all pods of "web" are running and ready
    When "web" is scaled to 0 replicas
    Then within 60 seconds all 0 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And pods web-2, web-1, web-0 were each gone before the next one was deleted
    And within 30 seconds the status of "web" reports 0 replicas, 0 of them ready

  # covers: E1 C1
  Scenario: scaled to zero and back, every pod returns with its name, identity and claim
    # rejects: a controller that gives a returning pod a new claim (or the claim of another ordinal), or recreates it without its hostname, subdomain or ordinal labels
    Given a StatefulSet "web" with 3 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    When "web" is scaled to 0 replicas
    Then within 60 seconds all 0 pods of "web" run the update revision and are ready
    When "web" is scaled to 3 replicas
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were created in the order web-0, web-1, web-2
    And every PersistentVolumeClaim of "web" kept its uid
    And every PersistentVolumeClaim of "web" kept its volume
    And pod "web-0" has "/spec/volumes/0/persistentVolumeClaim/claimName" set to "data-web-0"
    And pod "web-1" has "/spec/volumes/0/persistentVolumeClaim/claimName" set to "data-web-1"
    And pod "web-2" has "/spec/volumes/0/persistentVolumeClaim/claimName" set to "data-web-2"
    And pod "web-0" has "/metadata/labels/apps.kubernetes.io~1pod-index" set to "0"
    And pod "web-2" has "/metadata/labels/apps.kubernetes.io~1pod-index" set to "2"
    And pod "web-2" has "/metadata/labels/statefulset.kubernetes.io~1pod-name" set to "web-2"
    And pod "web-2" has "/spec/hostname" set to "web-2"
    And pod "web-2" has "/spec/subdomain" set to "web"

  # covers: I2
  Scenario: the status follows spec.replicas through 3, 0 and 2 replicas, then a template change
    # rejects: a controller that writes no status once no pod is left (still reporting 3 replicas at 0), or that does not report the generation of a change that leaves the replicas alone
    Given a StatefulSet "web" with 2 replicas
    And all pods of "web" are running and ready
    When "web" is scaled to 3 replicas
    Then within 60 seconds the status of "web" reports 3 replicas, 3 of them ready
    When "web" is scaled to 0 replicas
    Then within 60 seconds the status of "web" reports 0 replicas, 0 of them ready
    When "web" is scaled to 2 replicas
    Then within 60 seconds the status of "web" reports 2 replicas, 2 of them ready
    When the annotation "example.com/test" of the pods of "web" is set to "annotation"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And "web" has observed its latest generation
