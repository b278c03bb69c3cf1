@base @validation
Feature: What the API accepts and refuses for a StatefulSet
  upstream-statefulset-facts, "Validation (apiserver)": "selector must match
  template labels; selector and volumeClaimTemplates are immutable on update."
  StatefulSet concepts, "Pod Selector": "Failing to specify a matching Pod
  Selector will result in a validation error during StatefulSet creation." No
  reference text says that podManagementPolicy cannot change after creation:
  that rule is kube-apiserver's, whose error message lists the fields an
  update may change (the list differs between releases, so the scenario
  matches only the start of the message).

  # cite: upstream-statefulset-facts.md | Validation (apiserver) | "selector must match template labels; selector and volumeClaimTemplates are immutable on update."
  # cite: statefulset-concepts.txt | Pod Selector | "Failing to specify a matching Pod Selector will result in a validation error during StatefulSet creation."

  Scenario: podManagementPolicy cannot be changed after creation
    Given a StatefulSet "web" with 1 replica and pod management policy "OrderedReady"
    When an attempt is made to change the pod management policy of "web" to "Parallel"
    Then the request is refused with code 422 and a message containing "updates to statefulset spec for fields other than"

  # covers: C11
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
