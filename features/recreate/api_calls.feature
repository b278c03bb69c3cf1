@kep-3541 @recreate @gate-StatefulSetRecreateStrategy @isolated @embedded-only
Feature: A Recreate makes N pod deletions, N pod creations, and no new kind of call
  KEP-3541, "Will enabling / using this feature result in any new API
  calls?": "No new types of API calls." A Recreate update makes pod
  deletions, pod creations, StatefulSet status updates and event creations
  (a template change also makes a ControllerRevision, as for any update).
  Its Phase 1 deletes a pod only when "IF pod.DeletionTimestamp == nil THEN":
  a pod already being deleted is not sent another DELETE, although the
  controller syncs again and again while it terminates. A repeated DELETE
  changes no object, so the check reads the embedded apiserver's request log
  (its own cluster, so that the log holds only this scenario's requests).

  # cite: kep-3541 | Will enabling / using this feature result in any new API calls? | "No new types of API calls."
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "IF pod.DeletionTimestamp == nil THEN"

  # covers: R3 R55
  Scenario: a Recreate of 3 slowly terminating pods deletes each once and creates each once
    # rejects: a controller that sends a DELETE again to a pod already terminating, deletes or creates more than it replaces, or writes other kinds of objects (patches to pods, claims)
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "2" seconds
    And all pods of "web" are running and ready
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 60 seconds all 3 pods of "web" run the update revision and are ready
    And since the change the controller deleted 3 pods once each, created 3, and wrote nothing but status, ControllerRevisions and events

  # covers: R3
  Scenario: with the controller's pod view two seconds behind, a Recreate still deletes each pod once and creates each once
    A controller that decides on a pod cache which does not yet show its
    own deletions sees each pod it deleted as not being deleted, and by
    "IF pod.DeletionTimestamp == nil THEN" deletes it again. The pod view
    lags while the StatefulSet view is current, so the status write that
    follows the deletions starts a sync before the pod cache has them.
    # rejects: a controller that decides on its caches without waiting for them to show its own last writes
    Given a StatefulSet "web" with 3 replicas, update strategy "Recreate" and termination taking "2" seconds
    And all pods of "web" are running and ready
    And the controller's view of pods lags 2000 milliseconds behind for 20 seconds
    When the environment variable "VERSION" of "web" is set to "2"
    Then within 90 seconds all 3 pods of "web" run the update revision and are ready
    And since the change the controller deleted 3 pods once each, created 3, and wrote nothing but status, ControllerRevisions and events
    And every injected fault was triggered
