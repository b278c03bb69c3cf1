@kep-3541-draft @comparison @isolated @embedded-only
Feature: RollingUpdate, Recreate and EnforcedRollingUpdate compared on stuck pods
  KEP-3541's draft argued its design with a table ("Comparison with
  Existing Solutions"): RollingUpdate "Halts completely, waits forever"
  when a pod is stuck, with maxUnavailable it "Still halts completely",
  Parallel with maxUnavailable "Halts, loses ordering", and
  EnforcedRollingUpdate "Automatically replaces stuck pods" while keeping
  sequential ordering. The final KEP-3541 chose Recreate instead: "Since all
  pods are forcibly deleted, updates cannot become permanently blocked"
  ("Proposed Recreate Strategy Algorithm"). Here each design meets the same
  situations: three pods, a template that leaves new pods stuck in one of
  four ways (the draft's and KEP-3541's examples: an image that does not
  exist, a request no node can hold, a command that exits, a readiness gate
  nothing satisfies), under OrderedReady and Parallel, then a fix that works
  or a fix that is itself broken. Each fix is a revision of its own, so
  recovering means replacing every pod. Every row checks what its design
  promises: whether it recovers, the most pods unavailable at once, and its
  guarantee over the replacements (the reverse ordinal sequence for the
  rolling strategies, never two revisions at once for Recreate); the report
  gathers the outcomes, with the time each took to recover, into a table in
  the shape of the draft's.

  Where sources disagree: for Parallel, the draft's table says it halts,
  while its own integration tests expect that with Parallel a broken
  StatefulSet "will recover after applying with a fixed configuration", as
  upstream's controller does since the broken-pods fix (calibration-facts:
  "The broken-pods fix #137666 is in v1.37 only"); the spec follows the
  integration tests and upstream. For RollingUpdate with OrderedReady the
  StatefulSet documentation agrees with the draft ("Forced rollback"):
  "StatefulSet will stop the rollout and wait", and "it's not enough to
  revert the Pod template to a good configuration".

  # cite: kep-3541-draft | Comparison with Existing Solutions | "Halts completely, waits forever"
  # cite: kep-3541-draft | Comparison with Existing Solutions | "Still halts completely"
  # cite: kep-3541-draft | Comparison with Existing Solutions | "Halts, loses ordering"
  # cite: kep-3541-draft | Comparison with Existing Solutions | "Automatically replaces stuck pods"
  # cite: kep-3541 | Proposed Recreate Strategy Algorithm | "Since all pods are forcibly deleted, updates cannot become permanently blocked"
  # cite: kep-3541-draft | Integration tests | "will recover after applying with a fixed configuration"
  # cite: calibration-facts | Feature-gate defaults (kubernetes/website feature-gates pages; PRs named) | "The broken-pods fix #137666 is in v1.37 only"
  # cite: statefulset-concepts | Forced rollback | "StatefulSet will stop the rollout and wait"
  # cite: statefulset-concepts | Forced rollback | "it's not enough to revert the Pod template to a good configuration"

  Background:
    Given the apiserver runs with feature gate "EnforcedRollingUpdateInStatefulSet" on
    And the controller runs with feature gate "EnforcedRollingUpdateInStatefulSet" on

  # covers: D11 D12 D13 D14
  Scenario Outline: <strategy> under <policy>: pods left <stuck>, then a fix that <fix>
    Given a StatefulSet "web" with 3 replicas, update strategy "<strategy>" and pod management policy "<policy>"
    And all pods of "web" are running and ready
    When "web" is changed to a template that leaves its pods <stuck>
    Then within 30 seconds a pod of "web" created since the change is stuck
    When a fix that <fix> is applied to "web"
    Then "web" <outcome>
    And at no moment were more than <most> pods of "web" unavailable
    And at some moment <most> pods of "web" were unavailable at once
    And the replacements of "web" <guarantee>

    Examples: a fix that works
      | fix   | strategy              | policy       | stuck               | outcome                    | most | guarantee                         |
      | works | RollingUpdate         | OrderedReady | in ImagePullBackOff | stays stuck                | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | OrderedReady | unschedulable       | stays stuck                | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | OrderedReady | in CrashLoopBackOff | stays stuck                | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | OrderedReady | never ready         | stays stuck                | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | Parallel     | in ImagePullBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | Parallel     | unschedulable       | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | Parallel     | in CrashLoopBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | RollingUpdate         | Parallel     | never ready         | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | Recreate              | OrderedReady | in ImagePullBackOff | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | OrderedReady | unschedulable       | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | OrderedReady | in CrashLoopBackOff | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | OrderedReady | never ready         | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | Parallel     | in ImagePullBackOff | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | Parallel     | unschedulable       | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | Parallel     | in CrashLoopBackOff | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | Recreate              | Parallel     | never ready         | recovers within 60 seconds | 3    | never mixed revisions             |
      | works | EnforcedRollingUpdate | OrderedReady | in ImagePullBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | OrderedReady | unschedulable       | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | OrderedReady | in CrashLoopBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | OrderedReady | never ready         | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | Parallel     | in ImagePullBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | Parallel     | unschedulable       | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | Parallel     | in CrashLoopBackOff | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |
      | works | EnforcedRollingUpdate | Parallel     | never ready         | recovers within 60 seconds | 1    | kept the reverse ordinal sequence |

    Examples: a fix that is broken too
      | fix           | strategy              | policy       | stuck               | outcome     | most | guarantee                         |
      | is broken too | RollingUpdate         | OrderedReady | in ImagePullBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | OrderedReady | unschedulable       | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | OrderedReady | in CrashLoopBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | OrderedReady | never ready         | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | Parallel     | in ImagePullBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | Parallel     | unschedulable       | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | Parallel     | in CrashLoopBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | RollingUpdate         | Parallel     | never ready         | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | Recreate              | OrderedReady | in ImagePullBackOff | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | OrderedReady | unschedulable       | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | OrderedReady | in CrashLoopBackOff | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | OrderedReady | never ready         | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | Parallel     | in ImagePullBackOff | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | Parallel     | unschedulable       | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | Parallel     | in CrashLoopBackOff | stays stuck | 3    | never mixed revisions             |
      | is broken too | Recreate              | Parallel     | never ready         | stays stuck | 3    | never mixed revisions             |
      | is broken too | EnforcedRollingUpdate | OrderedReady | in ImagePullBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | OrderedReady | unschedulable       | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | OrderedReady | in CrashLoopBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | OrderedReady | never ready         | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | Parallel     | in ImagePullBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | Parallel     | unschedulable       | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | Parallel     | in CrashLoopBackOff | stays stuck | 1    | kept the reverse ordinal sequence |
      | is broken too | EnforcedRollingUpdate | Parallel     | never ready         | stays stuck | 1    | kept the reverse ordinal sequence |
