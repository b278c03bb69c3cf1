@kruise @paused
Feature: OpenKruise Advanced StatefulSet: a paused update keeps the replicas
  OpenKruise Advanced StatefulSet, "Paused update": "paused indicates that
  Pods updating is paused, controller will not update Pods but just maintain
  the number of replicas."

  What the page leaves open, the scenarios take from Kruise's source
  (clusters/targets/openkruise-facts.md, section 2): a paused set still
  creates a missing pod, and creates it at the update revision (the revision
  of a new pod follows the partition only; its unit test
  TestStatefulSetControlRollingUpdateWithPaused).

  # cite: openkruise-advanced-statefulset | Paused update | "paused indicates that Pods updating is paused, controller will not update Pods but just maintain the number of replicas."

  Background:
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        podManagementPolicy: Parallel
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            paused: true
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
              env:
              - {name: VERSION, value: "1"}
      """
    And all pods of "web" are running and ready

  # covers: K18
  Scenario: a template change updates no pod while paused, and all once resumed
    When the environment variable "VERSION" of "web" is set to "2"
    Then for 5 seconds no pod of "web" is created or deleted
    When "web" is changed with this merge patch:
      """
      spec:
        updateStrategy:
          rollingUpdate:
            paused: false
      """
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready

  # covers: K18
  Scenario: a paused set still replaces a deleted pod
    When the environment variable "VERSION" of "web" is set to "2"
    And pod "web-1" is deleted
    Then within 60 seconds pod "web-1" of "web" runs the update revision and is ready
    And for 5 seconds pod "web-2" is neither deleted nor replaced
    And pod "web-0" was neither deleted nor replaced
