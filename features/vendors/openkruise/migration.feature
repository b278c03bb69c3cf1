@kruise @migration
Feature: OpenKruise Advanced StatefulSet: moving ordinals between sets with ordinals.start
  OpenKruise Advanced StatefulSet, "User Stories", Story 1: "To move two
  pods, the my-app StatefulSet in the shared namespace can be scaled down to
  replicas: 3, ordinals.start: 0, and an analogous StatefulSet in the
  app-team namespace scaled up to replicas: 2, ordinals.start: 3." "Start
  ordinal": "To use this capability, you need to enable FeatureGate
  StatefulSetStartOrdinal=true" (the profile installs Kruise with it).

  A scenario has one namespace, so the two sides of the story are two sets
  in it, `src` and `dst`; the promise checked is the story's: the source
  keeps ordinals 0 to 2 untouched, the target runs ordinals 3 and 4 and never
  any other. Network, volumes and pacing are, in the story's words, the
  application operator's.

  # cite: openkruise-advanced-statefulset | Story 1 | "To move two pods, the my-app StatefulSet in the shared namespace can be scaled down to replicas: 3, ordinals.start: 0, and an analogous StatefulSet in the app-team namespace scaled up to replicas: 2, ordinals.start: 3."
  # cite: openkruise-advanced-statefulset | Start ordinal | "To use this capability, you need to enable FeatureGate StatefulSetStartOrdinal=true"

  # covers: K4
  Scenario: the source scales to 3 from ordinal 0, the target runs 2 from ordinal 3
    Given a StatefulSet "src" with 5 replicas and pod management policy "Parallel"
    And all pods of "src" are running and ready
    When "src" is scaled to 3 replicas
    And a StatefulSet "dst" with 2 replicas, pod management policy "Parallel" and ordinals starting at "3" is submitted
    Then within 60 seconds the pods of "src" are src-0, src-1, src-2
    And within 60 seconds the pods of "dst" are dst-3, dst-4
    And pod "src-0" was neither deleted nor replaced
    And pod "src-1" was neither deleted nor replaced
    And pod "src-2" was neither deleted nor replaced
    And no pod "dst-0" was ever created
    And no pod "dst-2" was ever created
