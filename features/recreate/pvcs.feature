@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: Recreate keeps every PersistentVolumeClaim
  KEP-3541, "Risks and Mitigations": "PVC Preservation: PersistentVolumeClaims
  are not deleted, so data on volumes persists across recreate operations";
  "Test Plan": "PersistentVolumeClaims are not deleted during Recreate (only
  pods are deleted)". This holds whatever the
  persistentVolumeClaimRetentionPolicy says: StatefulSet concepts,
  "PersistentVolumeClaim retention", says "these policies only apply when Pods
  are being removed due to the StatefulSet being deleted or scaled down", and
  a Recreate does neither.

  # cite: kep-3541 | Risks and Mitigations > Risk: Unintended Data Loss | "PVC Preservation: PersistentVolumeClaims are not deleted, so data on volumes persists across recreate operations"
  # cite: kep-3541 | Test Plan | "PVC preservation: PersistentVolumeClaims are not deleted during Recreate (only pods are deleted)"
  # cite: statefulset-concepts | PersistentVolumeClaim retention | "Bear in mind that these policies only apply when Pods are being removed due to the StatefulSet being deleted or scaled down."

  # covers: R23 C45
  Scenario Outline: claims keep their uid and binding under retention policy <policy>
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate", retention policy "<policy>" and a volume claim "data"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And every PersistentVolumeClaim of "web" kept its uid
    And every PersistentVolumeClaim of "web" kept its volume
    And no pod of the update revision was created while a pod of another revision existed

    Examples:
      | policy        |
      | Retain/Retain |
      | Delete/Delete |
