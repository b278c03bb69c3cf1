@kruise @update-sequence
Feature: OpenKruise Advanced StatefulSet: the order of an unordered update
  OpenKruise Advanced StatefulSet, "Update sequence": "If unorderedUpdate is
  not nil, pods will be updated with non-ordered sequence." "Priority
  strategy": "weight: Priority is determined by the sum of weights for terms
  that match selector." "order: Priority will be determined by the value of
  the orderKey. The update candidates are sorted based on the "int" part of
  the value string."

  What the page leaves open, the scenarios take from Kruise's source
  (clusters/targets/openkruise-facts.md, section 6): a higher weight goes
  first, and within one key the larger number goes first (`o-10` before
  `o-5`, Kruise's unit test); pods of equal priority keep the highest
  ordinal first. With the default maxUnavailable of 1, each pod is replaced
  only once the one before it is ready again, so the order of the deletions
  is the order of the update. Every pod carries the order key in the second
  scenario: what Kruise does with a pod without it is not documented (its
  API comment and its code disagree). The template changes 2 seconds after
  the labels, so that the controller has seen them.

  # cite: openkruise-advanced-statefulset | Update sequence | "If unorderedUpdate is not nil, pods will be updated with non-ordered sequence."
  # cite: openkruise-advanced-statefulset | Priority strategy | "weight: Priority is determined by the sum of weights for terms that match selector."
  # cite: openkruise-advanced-statefulset | Priority strategy | "order: Priority will be determined by the value of the orderKey. The update candidates are sorted based on the "int" part of the value string."

  # covers: K13
  Scenario: weightPriority updates the heaviest pods first
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        podManagementPolicy: Parallel
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            unorderedUpdate:
              priorityStrategy:
                weightPriority:
                - weight: 50
                  matchSelector:
                    matchLabels: {tier: a}
                - weight: 30
                  matchSelector:
                    matchLabels: {tier: b}
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
    When the label "tier" of pod "web-0" is set to "b"
    And the label "tier" of pod "web-1" is set to "a"
    Then for 2 seconds no pod of "web" is created or deleted
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-1, web-0, web-3, web-2
    And at no moment were more than 1 pod of "web" unavailable

  # covers: K14
  Scenario: orderPriority updates the largest number first
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        podManagementPolicy: Parallel
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
              env:
              - {name: VERSION, value: "1"}
      """
    And all pods of "web" are running and ready
    When the label "order" of pod "web-3" is set to "o-2"
    And the label "order" of pod "web-2" is set to "o-1"
    And the label "order" of pod "web-1" is set to "o-5"
    And the label "order" of pod "web-0" is set to "o-10"
    Then for 2 seconds no pod of "web" is created or deleted
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-0, web-1, web-3, web-2
    And at no moment were more than 1 pod of "web" unavailable
