@base @on-delete
Feature: OnDelete replaces a pod only when it is deleted
  StatefulSet concepts, "Update strategies": "When a StatefulSet's
  .spec.updateStrategy.type is set to OnDelete, the StatefulSet controller
  will not automatically update the Pods in a StatefulSet. Users must manually
  delete Pods to cause the controller to create new Pods that reflect
  modifications made to a StatefulSet's .spec.template."

  # cite: statefulset-concepts | Update strategies | "When a StatefulSet's .spec.updateStrategy.type is set to OnDelete, the StatefulSet controller will not automatically update the Pods in a StatefulSet. Users must manually delete Pods to cause the controller to create new Pods that reflect modifications made to a StatefulSet's .spec.template."

  # covers: R25 R30 R52 C23 E10
  Scenario: nothing changes until a pod is deleted; then it returns at the update revision
    Given a StatefulSet "web" with 3 replicas and update strategy "OnDelete"
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 3 seconds no pod of "web" is created or deleted
    And within 30 seconds "web" has observed its latest generation
    When pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And pod "web-0" of "web" runs the current revision
    And pod "web-2" of "web" runs the current revision
