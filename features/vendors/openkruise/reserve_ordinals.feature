@kruise @reserve-ordinals
Feature: OpenKruise Advanced StatefulSet: reserved ordinals are skipped
  OpenKruise Advanced StatefulSet, "Ordinals reserve(skip)": "By adding the
  ordinals to reserve into reserveOrdinals fields, Advanced StatefulSet will
  skip to create Pods with those ordinals. If these Pods have already
  existed, controller will delete them." "For an Advanced StatefulSet with
  replicas=4, reserveOrdinals=[1], the ordinals of running Pods will be
  [0,2,3,4]." Its two ways to take pod 3 away: "just append 3 into
  reserveOrdinals list. Then controller will delete Pod-3 and create Pod-5
  (existing Pods will be [0,2,4,5])", and "append 3 into reserveOrdinals list
  and set replicas to 3. Then controller will delete Pod-3 (existing Pods will
  be [0,2,4])".

  What the page leaves open, the scenarios take from Kruise's source
  (clusters/targets/openkruise-facts.md, section 3): a pod at a reserved
  ordinal is deleted as a scale-down deletes a pod (it is condemned), so the
  scenarios use podManagementPolicy Parallel and do not depend on the order
  of the deletion and the creation.

  # cite: openkruise-advanced-statefulset | Ordinals reserve(skip) | "By adding the ordinals to reserve into reserveOrdinals fields, Advanced StatefulSet will skip to create Pods with those ordinals. If these Pods have already existed, controller will delete them."
  # cite: openkruise-advanced-statefulset | Ordinals reserve(skip) | "For an Advanced StatefulSet with replicas=4, reserveOrdinals=[1], the ordinals of running Pods will be [0,2,3,4]."
  # cite: openkruise-advanced-statefulset | Ordinals reserve(skip) | "just append 3 into reserveOrdinals list. Then controller will delete Pod-3 and create Pod-5 (existing Pods will be [0,2,4,5])"
  # cite: openkruise-advanced-statefulset | Ordinals reserve(skip) | "append 3 into reserveOrdinals list and set replicas to 3. Then controller will delete Pod-3 (existing Pods will be [0,2,4])"

  # covers: K7
  Scenario: replicas 4 with ordinal 1 reserved runs pods 0, 2, 3 and 4
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        reserveOrdinals: [1]
        podManagementPolicy: Parallel
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
    And all pods of "web" are running and ready
    Then within 60 seconds the pods of "web" are web-0, web-2, web-3, web-4
    And no pod "web-1" was ever created

  # covers: K7
  Scenario: reserving an existing pod's ordinal deletes it and creates the next
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        reserveOrdinals: [1]
        podManagementPolicy: Parallel
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
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        reserveOrdinals: [1, 3]
      """
    Then within 60 seconds the pods of "web" are web-0, web-2, web-4, web-5
    And pod "web-0" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    And pod "web-4" was neither deleted nor replaced
    And no pod "web-1" was ever created

  # covers: K7
  Scenario: reserving an ordinal and lowering replicas only deletes that pod
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        reserveOrdinals: [1]
        podManagementPolicy: Parallel
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
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        replicas: 3
        reserveOrdinals: [1, 3]
      """
    Then within 60 seconds the pods of "web" are web-0, web-2, web-4
    And for 3 seconds no pod of "web" is created or deleted
    And pod "web-4" was neither deleted nor replaced
    And no pod "web-5" was ever created
