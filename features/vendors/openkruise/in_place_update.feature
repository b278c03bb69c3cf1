@kruise @in-place-update
Feature: OpenKruise Advanced StatefulSet: in-place update
  OpenKruise Advanced StatefulSet, "In-Place Update": "ReCreate controller
  will delete old Pods and create new ones. This is the same behavior as
  default StatefulSet." "InPlaceIfPossible controller will try to in-place
  update Pod instead of recreating them if possible." "InPlaceOnly
  controller will in-place update Pod instead of recreating them. With
  InPlaceOnly policy, user cannot modify any fields other than the fields
  that supported to in-place update." Its example says what is possible:
  "Do in-place update if possible, currently only image update is supported
  for in-place update". "The condition InPlaceUpdateReady in podStatus will
  be updated to False before in-place update and updated to True after the
  update is finished. This ensures that pod remain at NotReady state while
  the in-place update is happening." "Advanced StatefulSet has supported
  gracePeriodSeconds, which is a period duration between controller update
  pod status and update pod images."

  An in-place update keeps the pod: the scenarios check that each pod keeps
  its uid, runs the new image after its container restarted, and was never
  Ready while a container still ran the old image. Kruise's source pins
  what the page leaves open (clusters/targets/openkruise-facts.md, section
  1): the condition goes False in one status write with Ready, the pod is
  then patched with the new images in the write that sets its revision
  label (only a grace period puts the images in a later write), together
  with the template's labels and annotations, which Kruise updates in place
  as well (`defaultCalculateInPlaceUpdateSpec` lets every change under
  `/metadata/` through; the page's "only image update" is read as the pod
  spec's fields, as its InPlaceOnly webhook reads it); a change other than images falls back
  to deleting the pod under InPlaceIfPossible, and under InPlaceOnly its
  webhook refuses the template change (`invalid template modified with
  InPlaceOnly strategy`). Each scenario uses podManagementPolicy Parallel and
  the default maxUnavailable of 1, as the page's example does with 2.

  # cite: openkruise-advanced-statefulset | In-Place Update | "ReCreate controller will delete old Pods and create new ones. This is the same behavior as default StatefulSet."
  # cite: openkruise-advanced-statefulset | In-Place Update | "InPlaceIfPossible controller will try to in-place update Pod instead of recreating them if possible."
  # cite: openkruise-advanced-statefulset | In-Place Update | "InPlaceOnly controller will in-place update Pod instead of recreating them. With InPlaceOnly policy, user cannot modify any fields other than the fields that supported to in-place update."
  # cite: openkruise-advanced-statefulset | In-Place Update | "Do in-place update if possible, currently only image update is supported for in-place update"
  # cite: openkruise-advanced-statefulset | In-Place Update | "The condition InPlaceUpdateReady in podStatus will be updated to False before in-place update and updated to True after the update is finished. This ensures that pod remain at NotReady state while the in-place update is happening."
  # cite: openkruise-advanced-statefulset | In-Place Update | "Advanced StatefulSet has supported gracePeriodSeconds, which is a period duration between controller update pod status and update pod images."

  # covers: K9 K11
  Scenario Outline: <policy> changes an image in place, the pod not ready meanwhile
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
            podUpdatePolicy: <policy>
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:3.9"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-1" was neither deleted nor replaced
    And pod "web-2" was neither deleted nor replaced
    And pod "web-2" has "/spec/containers/0/image" set to "registry.k8s.io/pause:3.9"
    And pod "web-2" has "/status/containerStatuses/0/restartCount" set to "1"
    And every in-place update of "web" changed images only while InPlaceUpdateReady was False
    And every in-place update of "web" changed images in the same write as its revision label
    And no pod of "web" was ready while a container ran another image than its spec's
    And no pod of "web" had InPlaceUpdateReady True while a container ran another image than its spec's
    And at no moment were more than 1 pod of "web" unavailable
    And the event "SuccessfulUpdatePodInPlace" was recorded for "web" exactly 3 times

    Examples:
      | policy            |
      | InPlaceIfPossible |
      | InPlaceOnly       |

  # covers: K10
  Scenario: the images change only after the grace period
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        podManagementPolicy: Parallel
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            podUpdatePolicy: InPlaceIfPossible
            maxUnavailable: 2
            inPlaceUpdateStrategy:
              gracePeriodSeconds: 3
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:3.9"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-1" was neither deleted nor replaced
    And every in-place update of "web" changed images at least 3 seconds after InPlaceUpdateReady turned False
    And no pod of "web" was ready while a container ran another image than its spec's

  # covers: K9 K11
  Scenario: an image change that leaves a sidecar's image alone completes in place
    # rejects: a controller that counts an in-place update finished only once every container's image ID changed, so that a container whose image stays holds InPlaceUpdateReady False, and the pod unready, for ever
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        podManagementPolicy: Parallel
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
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
            - name: sidecar
              image: registry.k8s.io/pause:3.9
      """
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        template:
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.9
            - name: sidecar
              image: registry.k8s.io/pause:3.9
      """
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-1" was neither deleted nor replaced
    And every in-place update of "web" changed images only while InPlaceUpdateReady was False
    And no pod of "web" had InPlaceUpdateReady True while a container ran another image than its spec's

  # covers: K9 K11
  Scenario: an in-place update whose image cannot be pulled is not finished until a good image runs
    # rejects: a controller that counts an in-place update finished, and sets InPlaceUpdateReady True, before the kubelet runs the new image (while the pull fails the kubelet still reports the old container's image and imageID: kubelet_pods.go convertToAPIContainerStatuses)
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        podManagementPolicy: Parallel
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
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    When the image of "web" is changed to "registry.k8s.io/pause:no-such-tag"
    Then within 30 seconds pod "web-1" is waiting with reason "ImagePullBackOff"
    And for 3 seconds no pod of "web" is created or deleted
    And no pod of "web" had InPlaceUpdateReady True while a container ran another image than its spec's
    When the image of "web" is changed to "registry.k8s.io/pause:3.9"
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And no pod of "web" had InPlaceUpdateReady True while a container ran another image than its spec's
    And no pod of "web" was ready while a container ran another image than its spec's
    And pod "web-1" was neither deleted nor replaced

  # covers: K9
  Scenario: template labels and annotations changed with an image reach the pods in place
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        podManagementPolicy: Parallel
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
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
      """
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        template:
          metadata:
            labels: {app: web, tier: b}
            annotations: {note: two}
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.9
      """
    Then within 60 seconds all 2 pods of "web" run the update revision and are ready
    And pod "web-0" was neither deleted nor replaced
    And pod "web-1" was neither deleted nor replaced
    And pod "web-0" has "/metadata/labels/tier" set to "b"
    And pod "web-1" has "/metadata/labels/tier" set to "b"
    And pod "web-1" has "/metadata/annotations/note" set to "two"

  # covers: K9
  Scenario: InPlaceIfPossible recreates the pods for a change other than an image
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
            podUpdatePolicy: InPlaceIfPossible
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
              env:
              - {name: VERSION, value: "1"}
      """
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And pods were deleted in the order web-2, web-1, web-0
    And at no moment were more than 1 pod of "web" unavailable

  # covers: K9
  Scenario: InPlaceOnly refuses a template change other than an image
    Given a StatefulSet from this manifest:
      """
      apiVersion: apps.kruise.io/v1beta1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        replicas: 2
        podManagementPolicy: Parallel
        serviceName: web
        selector:
          matchLabels: {app: web}
        updateStrategy:
          type: RollingUpdate
          rollingUpdate:
            podUpdatePolicy: InPlaceOnly
        template:
          metadata:
            labels: {app: web}
          spec:
            readinessGates:
            - conditionType: InPlaceUpdateReady
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
              env:
              - {name: VERSION, value: "1"}
      """
    And all pods of "web" are running and ready
    When an attempt is made to change "web" with this merge patch:
      """
      spec:
        template:
          spec:
            containers:
            - name: app
              image: registry.k8s.io/pause:3.10
              env:
              - {name: VERSION, value: "2"}
      """
    Then the request is refused with code 422 and a message containing "invalid template modified with InPlaceOnly strategy: replace /containers/0/env/0/value, currently only image update is allowed for InPlaceOnly"
