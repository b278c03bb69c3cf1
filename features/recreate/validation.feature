@kep-3541 @recreate @gate-StatefulSetRecreateStrategy @validation
Feature: The API accepts Recreate and rejects what does not belong with it
  KEP-3541, "API Changes": `updateStrategy.type: Recreate` is a new value of
  the existing field, and "Implementation Changes" lists "No additional fields
  required for Recreate strategy (unlike RollingUpdate which has partition,
  maxUnavailable)". As for OnDelete, a `rollingUpdate` block is only allowed
  with type RollingUpdate: upstream-statefulset-facts, "Validation
  (apiserver)", says "rollingUpdate only with type RollingUpdate".

  # cite: kep-3541-recreate-strategy.txt | Implementation Changes | "No additional fields required for Recreate strategy (unlike RollingUpdate which has partition, maxUnavailable)"
  # cite: upstream-statefulset-facts.md | Validation (apiserver) | "rollingUpdate only with type RollingUpdate"

  Scenario: a StatefulSet with update strategy Recreate is accepted
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
          matchLabels: {app: web}
        updateStrategy:
          type: Recreate
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is accepted

  Scenario: Recreate together with a rollingUpdate block is rejected
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
          matchLabels: {app: web}
        updateStrategy:
          type: Recreate
          rollingUpdate:
            partition: 0
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.rollingUpdate"
