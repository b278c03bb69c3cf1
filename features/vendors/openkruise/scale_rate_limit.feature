@kruise @scale-max-unavailable
Feature: OpenKruise Advanced StatefulSet: scaling with rate limiting
  OpenKruise Advanced StatefulSet, "Scaling with rate limiting": "When this
  field has been set, Advanced StatefulSet will create pods with the
  guarantee that the number of unavailable pods during the update cannot
  exceed this value." "For example, the StatefulSet will firstly create 10
  pods. After that, it will create one more pod only if one pod created has
  been running and ready." "Note that it can just be allowed to work with
  Parallel podManagementPolicy."

  The scenarios count unavailable only the pods that exist: a pod not yet
  created is not "created" (the page's own example starts from none).
  Kruise's source spends the budget on each pod it creates and on each
  existing pod that is not running and available
  (clusters/targets/openkruise-facts.md, section 5).

  # cite: openkruise-advanced-statefulset | Scaling with rate limiting | "When this field has been set, Advanced StatefulSet will create pods with the guarantee that the number of unavailable pods during the update cannot exceed this value."
  # cite: openkruise-advanced-statefulset | Scaling with rate limiting | "For example, the StatefulSet will firstly create 10 pods. After that, it will create one more pod only if one pod created has been running and ready."
  # cite: openkruise-advanced-statefulset | Scaling with rate limiting | "Note that it can just be allowed to work with Parallel podManagementPolicy."

  # covers: K6
  Scenario: at most 2 unready pods are created, then one more per pod made ready
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 6
        podManagementPolicy: Parallel
        scaleStrategy:
          maxUnavailable: 2
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: kepspec.io/ready
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then within 30 seconds 2 pods of "web" exist at the update revision
    And for 3 seconds no further pod of the update revision of "web" is created
    When pod "web-0" is made ready
    Then within 30 seconds 3 pods of "web" exist at the update revision
    When pods web-1, web-2, web-3, web-4, web-5 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 6 pods of "web" run the update revision and are ready
    And at no moment were more than 2 created pods of "web" unavailable

  # covers: K6
  Scenario: a percentage rounds down, never below one pod
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 4
        podManagementPolicy: Parallel
        scaleStrategy:
          maxUnavailable: 10%
        serviceName: web
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: kepspec.io/ready
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    Then within 30 seconds 1 pod of "web" exists at the update revision
    And for 3 seconds no further pod of the update revision of "web" is created
    When pods web-0, web-1, web-2, web-3 are made ready in turn as they appear at the update revision
    Then within 60 seconds all 4 pods of "web" run the update revision and are ready
    And at no moment were more than 1 created pod of "web" unavailable
