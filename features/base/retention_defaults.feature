@base @retention
Feature: Claims are retained by default, and a retained claim comes back with its pod
  StatefulSet concepts, "PersistentVolumeClaim retention": "The default for
  policies is Retain, matching the StatefulSet behavior before this new
  feature." Retain means "PVCs from the volumeClaimTemplate are not affected
  when their Pod is deleted."; whenDeleted "configures the volume retention
  behavior that applies when the StatefulSet is deleted", whenScaled "when the
  replica count of the StatefulSet is reduced". "Limitations" states the same
  default: "Deleting and/or scaling a StatefulSet down will not delete the
  volumes associated with the StatefulSet." upstream-statefulset-facts,
  "Identity": "Retention policy (default Retain/Retain) works only through
  ownerReferences".

  A retained claim is the one the pod of its ordinal mounts when that pod
  exists again ("Stable Storage": "When a Pod is (re)scheduled onto a node,
  its volumeMounts mount the PersistentVolumes associated with its
  PersistentVolume Claims."); upstream names claims "PVC name <claim template
  name>-<set>-<ordinal>".

  Deleting the set here is what kubectl does (background cascade); the
  garbage collector of the embedded cluster removes a claim owned by the set
  within a second (base/retention.feature), so a claim still there five
  seconds later was retained.

  # cite: statefulset-concepts | PersistentVolumeClaim retention | "The default for policies is Retain, matching the StatefulSet behavior before this new feature."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "PVCs from the volumeClaimTemplate are not affected when their Pod is deleted."
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "configures the volume retention behavior that applies when the StatefulSet is deleted"
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "when the replica count of the StatefulSet is reduced"
  # cite: statefulset-concepts | Limitations | "Deleting and/or scaling a StatefulSet down will not delete the volumes associated with the StatefulSet."
  # cite: upstream-statefulset-facts | Identity | "Retention policy (default Retain/Retain) works only through ownerReferences"
  # cite: statefulset-concepts | Stable Storage | "When a Pod is (re)scheduled onto a node, its volumeMounts mount the PersistentVolumes associated with its PersistentVolume Claims."
  # cite: upstream-statefulset-facts | Identity | "PVC name <claim template name>-<set>-<ordinal>"

  # covers: C8 C42 C46 K5
  @slow
  Scenario: without a policy, neither a scale-down nor deleting the set deletes a claim
    # rejects: an implementation whose default is Delete for either field (an apiserver that defaults it to Delete, or a controller that, with the policy unset, makes the set or a condemned pod the claims' owner so that the garbage collector deletes them)
    Given a StatefulSet "web" with 3 replicas and a volume claim "data"
    And all pods of "web" are running and ready
    Then the StatefulSet "web" has "/spec/persistentVolumeClaimRetentionPolicy/whenDeleted" set to "Retain"
    And the StatefulSet "web" has "/spec/persistentVolumeClaimRetentionPolicy/whenScaled" set to "Retain"
    When "web" is scaled to 2 replicas
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And for 5 seconds the PersistentVolumeClaim "data-web-2" is kept
    When the StatefulSet "web" is deleted
    Then for 5 seconds the PersistentVolumeClaim "data-web-0" is kept
    And within 1 seconds the PersistentVolumeClaim "data-web-1" exists
    And every PersistentVolumeClaim of "web" kept its uid

  # covers: C42
  Scenario: whenDeleted Retain keeps every claim when the set is deleted, even with whenScaled Delete
    # rejects: a controller that lets whenScaled Delete decide what happens when the set is deleted (it makes the set the claims' owner)
    Given a StatefulSet "web" with 2 replicas, retention policy "Retain/Delete" and a volume claim "data"
    And all pods of "web" are running and ready
    When the StatefulSet "web" is deleted
    Then for 5 seconds the PersistentVolumeClaim "data-web-0" is kept
    And within 1 seconds the PersistentVolumeClaim "data-web-1" exists
    And every PersistentVolumeClaim of "web" kept its uid

  # covers: C52
  Scenario: a replica scaled away and back mounts its own retained claim again
    # rejects: a controller that makes a new claim for a returning ordinal (or deletes the retained one on scale-down and creates it afresh), so web-1 and web-2 come back to empty volumes
    Given a StatefulSet "web" with 3 replicas, retention policy "Retain/Retain" and a volume claim "data"
    And all pods of "web" are running and ready
    When "web" is scaled to 1 replica
    Then within 60 seconds all 1 pods of "web" run the update revision and are ready
    When "web" is scaled to 3 replicas
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And every PersistentVolumeClaim of "web" kept its uid
    And every PersistentVolumeClaim of "web" kept its volume
    And pod "web-1" has "/spec/volumes/0/persistentVolumeClaim/claimName" set to "data-web-1"
    And pod "web-2" has "/spec/volumes/0/persistentVolumeClaim/claimName" set to "data-web-2"
