@base @parallel
Feature: a Parallel set creates and deletes its pods in slow-start batches
  upstream-statefulset-facts, "Reconcile order (one sync)": a Parallel set
  "creates in slow-start batches 1,2,4..., and deletes condemned pods without
  waiting." calibration-facts: "Upstream deletes condemned/outdated pods and
  creates Parallel pods in slow-start batches (1, 2, 4, ...), all issued
  within one sync." In upstream's `slowStartBatch` (stateful_set_control.go)
  the pods of one batch are processed at once and a batch in which one of
  them fails is the last of the sync; the next sync starts again from a
  batch of one. So while creating one pod keeps failing, the pods of its
  batch are created and those of later batches never are.

  Where sources disagree: StatefulSet concepts, "Parallel Pod Management",
  says the controller launches "all Pods in parallel". The spec follows
  upstream's code, which launches them in growing batches within the same
  sync: without a failure every pod is still launched at once as far as a
  client can tell, and with one the batches keep a controller from flooding
  the apiserver with creations that all fail alike (a quota, an admission
  webhook).

  # cite: upstream-statefulset-facts | Reconcile order (one sync) | "creates in slow-start batches 1,2,4..., and deletes condemned pods without waiting."
  # cite: calibration-facts | Upstream StatefulSet controller, v1.37 (KEP-3541 alpha, PR #137187) | "Upstream deletes condemned/outdated pods and creates Parallel pods in slow-start batches (1, 2, 4, ...), all issued within one sync."
  # cite: statefulset-concepts | Parallel Pod Management | "all Pods in parallel"

  @isolated @embedded-only
  Scenario: while creating web-1 keeps failing, its batch partner web-2 is created and no pod of a later batch ever is
    # rejects: a controller that creates every pod of a Parallel set at once (web-3 to web-7 appear); one that stops at the first failed creation (web-2 never appears); and one that stops there and starts web-2 only with its next try at web-1 (the request log shows the retry first)
    Given every time the controller creates pod "web-1", the request fails with code 500
    When a StatefulSet "web" with 8 replicas and pod management policy "Parallel" is submitted
    Then within 30 seconds pods web-0, web-2 of "web" exist, and after 3 more seconds no other pod of it was ever created
    And the controller asked to create pod "web-2" before it asked a second time to create pod "web-1"
    And every injected fault was triggered
