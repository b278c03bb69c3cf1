@kep-961 @max-unavailable @validation @gate-MaxUnavailableStatefulSet
Feature: the API rejects a maxUnavailable of 0 or above 100%
  KEP-961, "Validation": maxUnavailable must be a positive integer or a
  percentage between 1% and 100% (upstream-statefulset-facts, "Validation").

  Scenario Outline: maxUnavailable <value> is rejected
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            maxUnavailable: <value>
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.rollingUpdate.maxUnavailable"

    Examples:
      | value  |
      | 0      |
      | "0%"   |
      | "101%" |
