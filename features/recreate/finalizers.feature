@kep-3541 @recreate @gate-StatefulSetRecreateStrategy
Feature: A pod held by a finalizer holds back the new pods
  KEP-3541, "Proposed Recreate Strategy Algorithm": in phase
  WaitingTermination, "Phase 2: Wait for all old-revision pods to be fully
  removed from etcd". A pod with a finalizer stays in the API, with a
  deletionTimestamp, until the finalizer is removed; until then no pod of the
  update revision may be created. The KEP's "Troubleshooting" names the case:
  "Check if pods are stuck in termination (long grace periods, finalizers
  blocking deletion)".

  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Phase 2: Wait for all old-revision pods to be fully removed from etcd"
  # cite: kep-3541 | Troubleshooting > What steps should be taken if SLOs are not being met to determine the problem? | "Check if pods are stuck in termination (long grace periods, finalizers blocking deletion)"

  # covers: R7 R53
  Scenario: new pods wait for the finalizer to be released
    Given a StatefulSet "web" with 3 replicas and update strategy "Recreate"
    And all pods of "web" are running and ready
    And pod "web-1" has the finalizer "example.com/hold"
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 30 seconds pod "web-1" is terminating
    And for 3 seconds no further pod of the update revision of "web" is created
    When the finalizer "example.com/hold" is removed from pod "web-1"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
