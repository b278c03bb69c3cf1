@base @rolling-update
Feature: Every kind of template change rolls out
  StatefulSet concepts, "Update strategies": "A StatefulSet's
  .spec.updateStrategy field allows you to configure and disable automated
  rolling updates for containers, labels, resource request/limits, and
  annotations for the Pods in a StatefulSet." upstream-statefulset-facts,
  "Revisions": "Only a change of .spec.template makes a new revision", and
  a revision's data is the whole template. Other features change containers
  (image, environment, command), a CPU request and annotations; this one
  changes a template label (one the selector does not use) with an
  annotation, and then the resource limits, each rolled out like any other
  change, the new pods carrying the template's labels and annotations ("Rolling Updates": "It will
  proceed in the same order as Pod termination (from the largest ordinal to
  the smallest), updating each Pod one at a time.").

  # cite: statefulset-concepts | Update strategies | "A StatefulSet's .spec.updateStrategy field allows you to configure and disable automated rolling updates for containers, labels, resource request/limits, and annotations for the Pods in a StatefulSet."
  # cite: upstream-statefulset-facts | Revisions | "Only a change of `.spec.template` makes a new revision"
  # cite: statefulset-concepts | Rolling Updates | "It will proceed in the same order as Pod termination (from the largest ordinal to the smallest), updating each Pod one at a time."

  # covers: C25
  Scenario: a template label change and then a resource limits change each roll out, one pod at a time
    # rejects: a controller whose revision leaves template labels or resource limits out (such a change makes no new revision and replaces no pod), that copies them into new pods without replacing the old ones, or that builds pods without the template's annotations
    Given a StatefulSet "web" with 3 replicas
    And all pods of "web" are running and ready
    When "web" is changed with this merge patch:
      """
      spec:
        template:
          metadata:
            labels: {tier: frontend}
            annotations: {example.com/tier: frontend}
      """
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced one at a time, highest ordinal first
    And pod "web-0" has "/metadata/labels/tier" set to "frontend"
    And pod "web-2" has "/metadata/labels/tier" set to "frontend"
    And pod "web-0" has "/metadata/annotations/example.com~1tier" set to "frontend"
    When the checks that follow look only at what happens from here on
    And "web" is changed with this merge patch:
      """
      spec:
        template:
          spec:
            containers:
              - name: app
                image: registry.k8s.io/pause:3.10
                resources:
                  limits: {cpu: 200m, memory: 64Mi}
      """
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And the pods of "web" were replaced one at a time, highest ordinal first
    And pod "web-0" has "/spec/containers/0/resources/limits/cpu" set to "200m"
    And pod "web-2" has "/spec/containers/0/resources/limits/memory" set to "64Mi"
