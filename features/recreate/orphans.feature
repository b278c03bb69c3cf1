@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreate deletes old pods beyond the replica count too
  KEP-3541, "Proposed Recreate Strategy Algorithm": in Phase 1, "Delete ALL
  pods owned by this StatefulSet that have old revision ... This handles
  orphaned pods with ordinals >= replicas"; among its key characteristics, it
  "Deletes all old-revision pods including orphans with ordinals >= replicas".
  Scaling down and changing the template in one update leaves pods whose
  ordinal is out of range; none of them may outlive the old revision, and none
  may come back. A finalizer holds one orphan while it terminates, so an
  orphan still terminating is seen by any pod created too early.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Delete ALL pods owned by this StatefulSet that have old revision ... This handles orphaned pods with ordinals >= replicas"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Deletes all old-revision pods including orphans with ordinals >= replicas"

  # covers: R2 R56
  Scenario: scaling down and changing the template at once
    # rejects: a controller that deletes the orphans but creates the new pods before they are gone, one whose phase decision looks only at the ordinals it keeps (the orphans terminate beside the new pods), and one that leaves the orphans
    Given a StatefulSet "web" with 5 replicas, update strategy "Recreate", pod management policy "Parallel" and termination taking "1" seconds
    And all pods of "web" are running and ready
    And pod "web-4" has the finalizer "kepspec.io/hold"
    When "web" is changed with this merge patch:
      """
      spec:
        replicas: 3
        template:
          metadata:
            annotations:
              example.com/version: "2"
      """
    Then within 30 seconds pod "web-4" is terminating
    And for 3 seconds no further pod of the update revision of "web" is created
    When the finalizer "kepspec.io/hold" is removed from pod "web-4"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And within 10 seconds the pods of "web" are web-0, web-1, web-2
    And every pod of "web" was being deleted before any of them was gone
    And no pod of the update revision was created while a pod of another revision existed
