@base @retention
Feature: PersistentVolumeClaim retention policy
  StatefulSet concepts, "PersistentVolumeClaim retention": whenDeleted applies
  when the StatefulSet is deleted, whenScaled when a replica is removed by
  scaling down; `Retain` keeps the claims, `Delete` deletes them: "With the
  whenScaled policy, only PVCs corresponding to Pod replicas being scaled down
  are deleted, after their Pods have been deleted." "The StatefulSet
  controller adds owner references to its PVCs, which are then deleted by the
  garbage collector after the Pod is terminated."

  Where sources disagree: under "Limitations" the same page says "Deleting
  and/or scaling a StatefulSet down will not delete the volumes associated
  with the StatefulSet". The spec follows "PersistentVolumeClaim retention",
  which explains that statement as the default: "The default for policies is
  Retain, matching the StatefulSet behavior before this new feature."

  The ownerReferences themselves are what the policy sets (upstream-statefulset-facts,
  "Identity": "Retention policy (default Retain/Retain) works only through
  ownerReferences: whenDeleted=Delete puts the set as owner; whenScaled=Delete
  puts the pod as owner once its ordinal is out of range; the garbage
  collector deletes."), and the page orders them before the pod's deletion:
  "no Pod will be deleted before its owner reference has been updated
  appropriate to the policy." A controller that deletes the claims itself
  reaches the same end state, so the scenarios below read the references, as
  upstream's e2e test `should delete PVCs with a WhenDeleted policy` and the
  integration test TestAutodeleteOwnerRefs do (a reference counts with the
  uid its owner has now; a set is referenced as the controller, as the e2e
  test expects). Where a policy has whenDeleted Delete and whenScaled Delete,
  a condemned pod's claim names the pod only: the facts name one owner per
  case, and upstream's `updateClaimOwnerRefForSetAndPod` removes the set's
  reference when it adds the pod's.

  # cite: upstream-statefulset-facts | Identity | "Retention policy (default Retain/Retain) works only through ownerReferences: whenDeleted=Delete puts the set as owner; whenScaled=Delete puts the pod as owner once its ordinal is out of range; the garbage collector deletes."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "no Pod will be deleted before its owner reference has been updated appropriate to the policy."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "With the whenScaled policy, only PVCs corresponding to Pod replicas being scaled down are deleted, after their Pods have been deleted."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "The StatefulSet controller adds owner references to its PVCs, which are then deleted by the garbage collector after the Pod is terminated."
  # cite: statefulset-concepts | Limitations | "Deleting and/or scaling a StatefulSet down will not delete the volumes associated with the StatefulSet."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "The default for policies is Retain, matching the StatefulSet behavior before this new feature."

  # covers: E26
  Scenario: whenScaled Delete removes the claim of a scaled-down replica
    Given a StatefulSet "web" with 2 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds the PersistentVolumeClaim "data-web-1" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-0" exists

  # covers: C44
  Scenario: whenScaled Retain keeps the claim of a scaled-down replica
    Given a StatefulSet "web" with 2 replicas, retention policy "Retain/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds all 1 pods of "web" run the update revision and are ready
    And for 2 seconds the PersistentVolumeClaim "data-web-1" is kept

  # covers: C41 K5
  Scenario: whenDeleted Delete removes every claim with the set
    Given a StatefulSet "web" with 2 replicas, retention policy "Delete/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When the StatefulSet "web" is deleted
    Then within 60 seconds the PersistentVolumeClaim "data-web-0" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-1" is gone

  # covers: I6 C47 E25
  Scenario Outline: under retention policy <policy> the claims name <running> while running and <condemned> once condemned
    # rejects: a controller that deletes claims itself instead of through owners, names the set where the pod is asked for (or the reverse), or keeps a reference the policy does not ask for
    Given a StatefulSet "web" with 3 replicas, retention policy "<policy>" and a volume claim "data"
    And all pods of "web" are running and ready
    And pod "web-2" has the finalizer "kepspec.io/hold"
    Then within 30 seconds the PersistentVolumeClaim "data-web-0" is owned by <running>
    When "web" is scaled to 2 replicas
    Then within 30 seconds pod "web-2" is terminating
    And within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by <condemned>
    And within 30 seconds the PersistentVolumeClaim "data-web-1" is owned by <running>
    When the finalizer "kepspec.io/hold" is removed from pod "web-2"
    Then within 60 seconds the PersistentVolumeClaim "data-web-2" <after>
    And the PersistentVolumeClaim "data-web-2" was not deleted before pod "web-2" was gone

    Examples:
      | policy        | running               | condemned             | after   |
      | Retain/Retain | nothing               | nothing               | exists  |
      | Delete/Retain | the StatefulSet "web" | the StatefulSet "web" | exists  |
      | Retain/Delete | nothing               | pod "web-2"           | is gone |
      | Delete/Delete | the StatefulSet "web" | pod "web-2"           | is gone |

  # covers: C48 C43
  @isolated
  Scenario: a condemned pod's claim names the pod before the pod is deleted, also when the controller restarts right after updating it
    # rejects: a controller that deletes a condemned pod first and sets its claim's owner afterwards, or deletes the claim while its pod still exists
    Given a StatefulSet "web" with 3 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    And the controller restarts right after it updates claim "data-web-2"
    When "web" is scaled to 1 replica
    Then within 60 seconds the PersistentVolumeClaim "data-web-2" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-1" is gone
    And the PersistentVolumeClaim "data-web-2" named pod "web-2" as an owner before the pod was deleted
    And the PersistentVolumeClaim "data-web-1" named pod "web-1" as an owner before the pod was deleted
    And the PersistentVolumeClaim "data-web-2" was not deleted before pod "web-2" was gone
    And the PersistentVolumeClaim "data-web-1" was not deleted before pod "web-1" was gone
    And every injected fault was triggered

  # covers: E27
  Scenario: a claim another controller owns survives a whenScaled Delete scale-down, and goes once that reference is removed
    Upstream's e2e test should not delete PVC with OnScaledown policy if
    another controller owns the PVC: a ConfigMap stands as the claim's
    controller, so the set must not make the claim its pod's.
    Given a StatefulSet "web" with 3 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    When a ConfigMap "dummy-controller" is created
    And the PersistentVolumeClaim "data-web-1" is controlled by the ConfigMap "dummy-controller"
    And "web" is changed with this merge patch:
      """
      spec:
        persistentVolumeClaimRetentionPolicy:
          whenScaled: Delete
      """
    And "web" is scaled to 0 replicas
    Then within 60 seconds the PersistentVolumeClaim "data-web-2" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-0" is gone
    And for 2 seconds the PersistentVolumeClaim "data-web-1" is kept
    When the ownerReferences of the PersistentVolumeClaim "data-web-1" are removed
    And "web" is scaled to 2 replicas
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And within 60 seconds the PersistentVolumeClaim "data-web-0" exists
    When "web" is scaled to 1 replica
    Then within 60 seconds the PersistentVolumeClaim "data-web-1" is gone

  # covers: E30
  Scenario: the set takes control of its claims beside another owner, leaves a claim another StatefulSet controls, and deletes only the claims it controls
    Upstream's e2e test should not delete PVCs when there is another
    controller: a ConfigMap is an owner, not the controller, of one claim
    (here it has the set's name: a reference is the set's only when its
    apiVersion, kind and name all are, upstream's `matchesRef`);
    another claim is controlled by a StatefulSet of another uid that does not
    exist and held by a finalizer. Once whenDeleted is Delete, the set is
    added as the controller beside the ConfigMap, the stale controller is
    left alone, and a controller flag cleared by hand comes back; deleting
    the set deletes only the claims it alone owns (the ConfigMap still owns
    one, the finalizer holds the other). Upstream's `updateClaimOwnerRefForSetAndPod`
    never touches a reference that is not the claim's set's or pod's.
    Given a StatefulSet "web" with 4 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    When a ConfigMap "web" is created
    And the PersistentVolumeClaim "data-web-1" is given the ConfigMap "web" as an owner that is not its controller
    And the PersistentVolumeClaim "data-web-3" is given a StatefulSet "unknown" that does not exist as its controller, and the finalizer "keep-with/stale-ref"
    And "web" is changed with this merge patch:
      """
      spec:
        persistentVolumeClaimRetentionPolicy:
          whenDeleted: Delete
      """
    Then within 30 seconds the PersistentVolumeClaim "data-web-0" is owned by the StatefulSet "web"
    And within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by the StatefulSet "web"
    And within 30 seconds the PersistentVolumeClaim "data-web-1" is owned by the StatefulSet "web" besides the owner it was given
    When the PersistentVolumeClaim "data-web-0" is given the StatefulSet "web" as an owner that is not its controller
    And "web" is changed with this merge patch:
      """
      spec:
        persistentVolumeClaimRetentionPolicy:
          whenDeleted: Delete
          whenScaled: Delete
      """
    Then within 30 seconds the PersistentVolumeClaim "data-web-0" is owned by the StatefulSet "web"
    When the StatefulSet "web" is deleted
    Then within 60 seconds the PersistentVolumeClaim "data-web-0" is gone
    And within 60 seconds the PersistentVolumeClaim "data-web-2" is gone
    And for 2 seconds the PersistentVolumeClaim "data-web-1" is kept
    And for 0 seconds the PersistentVolumeClaim "data-web-3" is kept
    And every version of the PersistentVolumeClaim "data-web-1" since it was given ownerReferences keeps them unchanged
    And every version of the PersistentVolumeClaim "data-web-3" since it was given ownerReferences has exactly those
    When the finalizer "keep-with/stale-ref" is removed from the PersistentVolumeClaim "data-web-3"
    Then within 30 seconds the PersistentVolumeClaim "data-web-3" is gone

  # covers: E30
  Scenario: a claim another controller controls loses the set's reference, and the set adds none
    Upstream's `isClaimOwnerUpToDate` and `updateClaimOwnerRefForSetAndPod`
    (pkg/controller/statefulset/stateful_set_utils.go): under a policy
    other than Retain/Retain, a claim whose controller is neither its set
    nor its pod is "not up to date" while it names the set or the pod; the
    set then scrubs its own and its pod's references and adds none, leaving
    the claim to the other controller. Upstream's controller does not sync a
    set when one of its claims changes, so the set is scaled up to make it
    sync.
    Given a StatefulSet "web" with 2 replicas, retention policy "Delete/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When a ConfigMap "dummy-controller" is created
    And the PersistentVolumeClaim "data-web-1" is given the ConfigMap "dummy-controller" as its controller and the StatefulSet "web" as an owner that is not its controller
    And "web" is scaled to 3 replicas
    Then within 30 seconds the PersistentVolumeClaim "data-web-1" names only the ConfigMap it was given
    And within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by the StatefulSet "web"
    And within 30 seconds the PersistentVolumeClaim "data-web-0" is owned by the StatefulSet "web"

  # covers: C47
  Scenario: a condemned pod's reference on its claim gets its controller flag back
    # rejects: a controller that restores the set's controller flag on a claim but not the pod's, or leaves the claims of condemned pods alone once it has set them
    Upstream's `isClaimOwnerUpToDate` (pkg/controller/statefulset/stateful_set_utils.go):
    a claim that names its set or its pod as an owner that is not its
    controller is not up to date (`hasNonControllerOwner`), and
    `updateStatefulSet` puts right the claims of the condemned pods on every
    sync ("Ensure ownerRefs are set correctly for the condemned pods"). A
    finalizer holds the condemned pod while it terminates, its claim's
    reference to it loses the controller flag by hand, and a change of the
    set makes the controller sync (upstream's controller does not sync on a
    claim change).
    Given a StatefulSet "web" with 3 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    And pod "web-2" has the finalizer "kepspec.io/hold"
    When "web" is scaled to 2 replicas
    Then within 30 seconds pod "web-2" is terminating
    And within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by pod "web-2"
    When the PersistentVolumeClaim "data-web-2" is given pod "web-2" as an owner that is not its controller
    And "web" is changed with this merge patch:
      """
      spec:
        revisionHistoryLimit: 5
      """
    Then within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by pod "web-2"
    When the finalizer "kepspec.io/hold" is removed from pod "web-2"
    Then within 60 seconds the PersistentVolumeClaim "data-web-2" is gone

  # covers: C47
  Scenario: a claim that names an earlier StatefulSet of the same name is left alone
    # rejects: a controller that takes a claim an earlier set of its name still controls for its own (it drops that reference, or adds its own beside it)
    Upstream's `isClaimOwnerUpToDate` (pkg/controller/statefulset/stateful_set_utils.go):
    a claim whose reference matches the set by apiVersion, kind and name but
    not by uid (`hasStaleOwnerRef`) "is being managed by previous, presumably
    deleted, version of the controller. It should not be touched." The
    garbage collector deletes such a claim, as its owner does not exist; a
    finalizer holds it here. The set is scaled up to make the controller
    sync, as upstream's controller does not sync on a claim change.
    Given a StatefulSet "web" with 2 replicas, retention policy "Delete/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When the PersistentVolumeClaim "data-web-1" is given an earlier StatefulSet "web" of another uid as its controller, and the finalizer "keep-with/stale-ref"
    And "web" is scaled to 3 replicas
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And within 30 seconds the PersistentVolumeClaim "data-web-2" is owned by the StatefulSet "web"
    And within 30 seconds the PersistentVolumeClaim "data-web-0" is owned by the StatefulSet "web"
    And every version of the PersistentVolumeClaim "data-web-1" since it was given ownerReferences has exactly those
    # The finalizer goes, so that the scenario's namespace can go on a real cluster.
    When the finalizer "keep-with/stale-ref" is removed from the PersistentVolumeClaim "data-web-1"

  # covers: C47
  @embedded-only
  Scenario: a pod is not created again while its claim still names the pod's earlier incarnation
    # rejects: a controller that creates web-2 again at once, handing it the claim the garbage collector is about to delete
    Upstream's `PodClaimIsStale` (pkg/controller/statefulset/stateful_pod_control.go),
    which its sync calls before every pod creation: under whenScaled Delete,
    a claim naming a pod of the pod's name with another uid is stale, "no
    more work can be done this round", and the pod waits until the garbage
    collector has deleted the claim. On a real cluster that window lasts as
    long as the garbage collector takes; the embedded cluster holds its
    collector off the scenario's objects to keep it open until the
    controller has seen the scale-up, so the scenario runs there only.
    Upstream's controller does not sync when a claim goes, so the set is
    changed once the claim is gone.
    Given a StatefulSet "web" with 3 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    When the garbage collector leaves the scenario's objects alone for 60 seconds at most
    And "web" is scaled to 2 replicas
    Then within 30 seconds the pods of "web" are web-0, web-1
    When "web" is scaled to 3 replicas
    Then within 30 seconds "web" has observed its latest generation
    And no pod "web-2" of "web" was created while the PersistentVolumeClaim "data-web-2" named an earlier pod of that name
    When the garbage collector takes up the scenario's objects again
    Then within 30 seconds the PersistentVolumeClaim "data-web-2" is gone
    When "web" is changed with this merge patch:
      """
      spec:
        revisionHistoryLimit: 5
      """
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod "web-2" of "web" was created while the PersistentVolumeClaim "data-web-2" named an earlier pod of that name

  # covers: C47
  Scenario: a claim owned by an object of another kind named like the pod does not hold the pod back
    # rejects: a controller that takes any owner named like the pod for an earlier pod of that name, whatever its kind, and waits for ever for the claim to go
    Upstream's `PodClaimIsStale` finds the earlier pod through `matchesRef`
    (pkg/controller/statefulset/stateful_set_utils.go), which compares a
    reference's group, kind and name: a ConfigMap named like the pod is not
    the pod, and the claim it owns is not stale. The ConfigMap keeps the
    claim from the garbage collector, so this holds on any cluster.
    Given a StatefulSet "web" with 3 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    When "web" is scaled to 2 replicas
    Then within 30 seconds the pods of "web" are web-0, web-1
    When a ConfigMap "web-2" is created
    And the PersistentVolumeClaim "data-web-2" is given the ConfigMap "web-2" as an owner that is not its controller
    And "web" is changed with this merge patch:
      """
      spec:
        persistentVolumeClaimRetentionPolicy:
          whenScaled: Delete
      """
    And "web" is scaled to 3 replicas
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
