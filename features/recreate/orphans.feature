@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreate deletes old pods beyond the replica count too
  KEP-3541, "Proposed Recreate Strategy Algorithm": in Phase 1, "Delete ALL
  pods owned by this StatefulSet that have old revision ... This handles
  orphaned pods with ordinals >= replicas"; among its key characteristics, it
  "Deletes all old-revision pods including orphans with ordinals >= replicas".
  Scaling down and changing the template in one update leaves pods whose
  ordinal is out of range; none of them may outlive the old revision, and none
  may come back.

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Delete ALL pods owned by this StatefulSet that have old revision ... This handles orphaned pods with ordinals >= replicas"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Deletes all old-revision pods including orphans with ordinals >= replicas"

  # covers: R2 R56
  Scenario: scaling down and changing the template at once
    Given a StatefulSet "web" with 5 replicas, update strategy "Recreate" and pod management policy "Parallel"
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        replicas: 3
        template:
          metadata:
            annotations:
              example.com/version: "2"
      """
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
