@kep-3541-draft @isolated @embedded-only
Feature: EnforcedRollingUpdate creates a pod again only once its claim being deleted is gone
  The earlier draft of KEP-3541 lists, under "What are other known failure
  modes?", PVC deletion race conditions: a new pod starts against a claim
  that is on its way out. Its mitigation: "StatefulSet controller waits for
  PVC cleanup before creating new pods". Upstream's pod control refuses to
  create a pod whose claim has a deletionTimestamp (the sync fails with `pvc
  <name> is being deleted` and is retried), so the pod comes back, with a new
  claim, once the old claim is gone. Here a finalizer holds the claim, as the
  kubernetes.io/pvc-protection finalizer holds a claim still in use on a
  real cluster, while the rollout replaces its pod. The draft was never
  merged: only the bundled controller implements it, behind the gate
  EnforcedRollingUpdateInStatefulSet on both the apiserver and the
  controller, which the scenario turns on.

  # cite: kep-3541-draft | What are other known failure modes? | "StatefulSet controller waits for PVC cleanup before creating new pods"

  Background:
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" on
    And the controller runs with feature gate "EnforcedRollingUpdateInStatefulSet" on

  # covers: D17
  Scenario: a claim deleted before a rollout holds its pod's re-creation until the claim is gone
    # rejects: a controller that creates the pod again while its claim is still being deleted, so the new pod starts on a claim about to disappear
    Given a StatefulSet "web" with 3 replicas, update strategy "EnforcedRollingUpdate" and a volume claim "data"
    And all pods of "web" are running and ready
    And the PersistentVolumeClaim "data-web-2" has the finalizer "kepspec.io/hold"
    When the PersistentVolumeClaim "data-web-2" is deleted
    And the environment variable "VERSION" of "web" is set to "2"
    Then for 5 seconds no further pod of the update revision of "web" is created
    When the finalizer "kepspec.io/hold" is removed from the PersistentVolumeClaim "data-web-2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And within 30 seconds the PersistentVolumeClaim "data-web-2" exists
    And no pod "web-2" was created while the PersistentVolumeClaim "data-web-2" was being deleted
