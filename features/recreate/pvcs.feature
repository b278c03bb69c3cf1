@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreate keeps every PersistentVolumeClaim
  KEP-3541, "PVC Preservation": "PersistentVolumeClaims are not deleted, so
  data on volumes persists across recreate operations" — whatever the
  persistentVolumeClaimRetentionPolicy says, since neither whenDeleted (the
  set is not deleted) nor whenScaled (no ordinal leaves the range) applies.

  Scenario Outline: claims keep their uid and binding under retention policy <policy>
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", retention policy "<policy>" and a volume claim "data"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And every PersistentVolumeClaim of "web" kept its uid
    And no pod of the update revision was created while a pod of another revision existed

    Examples:
      | policy        |
      | Retain/Retain |
      | Delete/Delete |
