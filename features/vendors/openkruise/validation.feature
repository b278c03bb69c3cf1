@kruise @kruise-validation
Feature: OpenKruise Advanced StatefulSet: what only works with Parallel, and in-place updates' readiness gate
  OpenKruise Advanced StatefulSet, "MaxUnavailable": "It is only allowed to
  use when the podManagementPolicy is Parallel." "Scaling with rate
  limiting": "Note that it can just be allowed to work with Parallel
  podManagementPolicy." "Update sequence": "Noted that UnorderedUpdate can
  only be allowed to work with Parallel podManagementPolicy." "In-Place
  Update": "More importantly, a readiness-gate named InPlaceUpdateReady must
  be added into template.spec.readinessGates when using InPlaceIfPossible or
  InPlaceOnly."

  The page does not say what happens to a set that breaks these rules:
  refused, or accepted and the field ignored. Kruise's validating webhook
  (vstatefulset.kb.io, statefulset_validation.go; clusters/targets/openkruise-facts.md,
  sections 1, 5 and 6) refuses it with code 422, in its own words, which the
  scenarios expect; a maxUnavailable of exactly 1 is allowed with either
  policy (it is the default).

  # cite: openkruise-advanced-statefulset | MaxUnavailable | "It is only allowed to use when the podManagementPolicy is Parallel."
  # cite: openkruise-advanced-statefulset | Scaling with rate limiting | "Note that it can just be allowed to work with Parallel podManagementPolicy."
  # cite: openkruise-advanced-statefulset | Update sequence | "Noted that UnorderedUpdate can only be allowed to work with Parallel podManagementPolicy."
  # cite: openkruise-advanced-statefulset | In-Place Update | "More importantly, a readiness-gate named InPlaceUpdateReady must be added into template.spec.readinessGates when using InPlaceIfPossible or InPlaceOnly."

  # covers: K16
  Scenario: rollingUpdate.maxUnavailable of 2 without Parallel is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            maxUnavailable: 2
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:2"
    And the request is refused with code 422 and a message containing "can only work with Parallel PodManagementPolicyType"

  # covers: K6 K16
  Scenario: scaleStrategy.maxUnavailable without Parallel is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        scaleStrategy:
          maxUnavailable: 50%
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.scaleStrategy.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0"
    And the request is refused with code 422 and a message containing "can only work with Parallel PodManagementPolicyType"

  # covers: K16
  Scenario: unorderedUpdate without Parallel is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            unorderedUpdate:
              priorityStrategy:
                orderPriority:
                - orderedKey: order
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "spec.updateStrategy.rollingUpdate.unorderedUpdate: Required value: unorderedUpdate can only work with Parallel PodManagementPolicyType"

  # covers: K16
  Scenario: an in-place update policy without the InPlaceUpdateReady readiness gate is refused
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            podUpdatePolicy: InPlaceIfPossible
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then the request is refused with code 422 and a message containing "must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible"

  # covers: K16
  Scenario: with Parallel, a maxUnavailable of 2 is accepted
    When a StatefulSet is submitted from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 3
        podManagementPolicy: Parallel
        scaleStrategy:
          maxUnavailable: 2
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            maxUnavailable: 2
        template:
          metadata:
            labels: {app: web}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then the request is accepted
