@kep-3541 @recreate @gate-StatefulSetRecreateStrategy @validation
Feature: The API accepts Recreate and rejects what does not belong with it
  KEP-3541, "API Changes": `updateStrategy.type: Recreate` is a new value of
  the existing field, and "Implementation Changes" lists "No additional fields
  required for Recreate strategy (unlike RollingUpdate which has partition,
  maxUnavailable)". As for OnDelete, a `rollingUpdate` block is only allowed
  with type RollingUpdate: upstream-statefulset-facts, "Validation
  (apiserver)", says "rollingUpdate only with type RollingUpdate".

  In alpha, a StatefulSet cannot leave Recreate: "Integration tests": "For
  alpha, Add test to verify that we cannot switch strategies from Recreate to
  RollingUpdate or OnDelete. Later on beta, we will need to add a test to
  verify that we can switch strategies".

  Where sources disagree: upstream v1.37's registry strategy tests (as
  indexed from kubernetes PR #137187) let a StatefulSet switch from Recreate
  to RollingUpdate or OnDelete with the gate on, where an earlier revision of
  that PR forbade it; the spec states the KEP's alpha rule, and the upstream
  target declares the difference (deviation switch-away-allowed), checked by
  the scenario tagged @deviation-switch-away-allowed.

  # cite: kep-3541 | Implementation Changes | "No additional fields required for Recreate strategy (unlike RollingUpdate which has partition, maxUnavailable)"
  # cite: kep-3541 | Integration tests | "For alpha, Add test to verify that we cannot switch strategies from Recreate to RollingUpdate or OnDelete. Later on beta, we will need to add a test to verify that we can switch strategies"
  # cite: upstream-statefulset-facts | Validation (apiserver) | "rollingUpdate only with type RollingUpdate"

  # covers: R26 R27
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
    And the StatefulSet "web" has "/spec/updateStrategy/type" set to "Recreate"

  # covers: R27 R57
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

  # covers: R31
  @deviates-switch-away-allowed
  Scenario Outline: while the gate is alpha, a Recreate StatefulSet cannot switch to <strategy>
    Given a StatefulSet "web" with 2 replicas and update strategy "Recreate"
    When an attempt is made to change the update strategy of "web" to "<strategy>"
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.type"
    And the StatefulSet "web" has "/spec/updateStrategy/type" set to "Recreate"

    Examples:
      | strategy      |
      | RollingUpdate |
      | OnDelete      |

  # covers: R19 R32
  @deviation-switch-away-allowed
  Scenario Outline: a Recreate StatefulSet switched to <strategy> keeps its pods
    Given a StatefulSet "web" with 2 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    When the update strategy of "web" is changed to "<strategy>"
    Then the StatefulSet "web" has "/spec/updateStrategy/type" set to "<strategy>"
    And for 3 seconds no pod of "web" is created or deleted

    Examples:
      | strategy      |
      | RollingUpdate |
      | OnDelete      |
