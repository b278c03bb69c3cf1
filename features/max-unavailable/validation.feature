@kep-961 @max-unavailable @validation @gate-MaxUnavailableStatefulSet
Feature: the API rejects a maxUnavailable of 0 or above 100%
  StatefulSet concepts, "Maximum unavailable Pods": "This field cannot be 0."
  upstream-statefulset-facts, "Validation (apiserver)": maxUnavailable must be
  "a positive int or a percentage <= 100%". KEP-961, "Proposal", says only
  that it "can be an absolute, positive number (eg. 5) or a percentage of
  desired pods (ex: 10%)". A negative number is not positive, and a string
  that is not a whole-number percentage is neither form: upstream checks the
  string against the pattern `[0-9]+%` (IsValidPercent in
  k8s.io/apimachinery/pkg/util/validation, used by ValidatePositiveIntOrPercent
  in pkg/apis/apps/validation, kubernetes v1.37.0), so `abc` and `10.5%`
  are refused as well as -1.

  Where sources disagree: KEP-961, "API Changes", also says maxUnavailable
  "cannot be greater than total number of replicas" (nor than
  replicas-partition); upstream validation has no such limit, so no scenario
  here expects such a value to be refused, and the spec treats it as a clamp
  (budget.feature, partition.feature).

  # cite: statefulset-concepts | Maximum unavailable Pods | "This field cannot be 0."
  # cite: upstream-statefulset-facts | Validation (apiserver) | "maxUnavailable a positive int or a percentage <= 100%"
  # cite: kep-961 | Proposal | "This new field can be an absolute, positive number (eg. 5) or a percentage of desired pods (ex: 10%)."
  # cite: kep-961 | API Changes | "If maxUnavailable is specified, it cannot be greater than total number of replicas."

  # covers: M41 C35
  Scenario Outline: maxUnavailable <value> is rejected
    # rejects: an apiserver that takes a non-positive, malformed or fractional value (and a controller would then have to guess what it means)
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
      | value   |
      | 0       |
      | "0%"    |
      | "101%"  |
      | -1      |
      | "abc"   |
      | "10.5%" |
