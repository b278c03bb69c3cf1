@kep-3541 @gate-StatefulSetRecreateStrategy @faults @isolated @embedded-only
Feature: A Recreate halts while the apiserver refuses the controller, and completes after
  KEP-3541, "How does this feature react if the API server and/or etcd is
  unavailable?": "API Server Unavailable: StatefulSet controller cannot
  read/write StatefulSet or Pod objects, so all updates halt." and "No
  special handling is required as this feature only changes the update
  progression logic". Here the embedded apiserver answers every request the
  controller starts with 503 while the outage lasts (the watch streams the
  controller already holds stay open, so it sees the template change and
  tries to act). Nothing may change meanwhile; once the apiserver serves it
  again, the Recreate runs as it would have: every old pod gone before any
  new one, RecreateStarted once.

  # cite: kep-3541 | How does this feature react if the API server and/or etcd is unavailable? | "API Server Unavailable: StatefulSet controller cannot read/write StatefulSet or Pod objects, so all updates halt."
  # cite: kep-3541 | How does this feature react if the API server and/or etcd is unavailable? | "No special handling is required as this feature only changes the update progression logic"

  # covers: R54
  @slow
  Scenario: a template change made during an outage waits for the outage to end, then the Recreate completes
    # rejects: a controller that acts on a view it cannot confirm (deletes or creates anyway), or that gives up and never resumes once the apiserver serves it again
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and a volume claim "data"
    And all pods of "web" are running and ready
    When the apiserver stops serving the controller
    And the environment variable "VERSION" of "web" is set to "2"
    Then for 5 seconds no pod of "web" is created or deleted while the controller is refused
    When the apiserver serves the controller again
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And no pod of the update revision was created while a pod of another revision existed
    And every PersistentVolumeClaim of "web" kept its uid
    And the event "RecreateStarted" was recorded for "web" exactly 1 time
