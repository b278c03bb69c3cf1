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

  # cite: statefulset-concepts.txt | PersistentVolumeClaim retention | "With the whenScaled policy, only PVCs corresponding to Pod replicas being scaled down are deleted, after their Pods have been deleted."
  # cite: statefulset-concepts.txt | PersistentVolumeClaim retention | "The StatefulSet controller adds owner references to its PVCs, which are then deleted by the garbage collector after the Pod is terminated."
  # cite: statefulset-concepts.txt | Limitations | "Deleting and/or scaling a StatefulSet down will not delete the volumes associated with the StatefulSet."
  # cite: statefulset-concepts.txt | PersistentVolumeClaim retention | "The default for policies is Retain, matching the StatefulSet behavior before this new feature."

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
