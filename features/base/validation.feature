@base @validation
Feature: What the API accepts and refuses for a StatefulSet
  upstream-statefulset-facts, "Validation": "updates may change only
  replicas, ordinals, template, updateStrategy,
  persistentVolumeClaimRetentionPolicy, minReadySeconds and
  revisionHistoryLimit"; the selector must match the template's labels.

  Scenario: podManagementPolicy cannot be changed after creation
    Given a StatefulSet "web" with 1 replica and pod management policy "OrderedReady"
    When an attempt is made to change the pod management policy of "web" to "Parallel"
    Then the request is refused with code 422 and a message containing "updates to statefulset spec for fields other than"

  Scenario: a selector that does not match the template's labels is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 1
        serviceName: web
        selector:
          matchLabels: {app: other}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.template.metadata.labels"
