#!/usr/bin/env bash
# The steps of the kepspec GitHub Action (action.yml), one function per phase:
#
#   ci/action.sh install   install kepspec, the pinned kind and (when missing) kubectl
#   ci/action.sh run       kepspec run --cluster kind ... for one matrix row
#
# The action's inputs arrive as INPUT_* variables (action.yml sets each one
# from its input): INPUT_KUBERNETES_VERSION, INPUT_NODE_IMAGE, INPUT_TARGET,
# INPUT_TAGS, INPUT_REQUIRE, INPUT_SHARD, INPUT_JUNIT, INPUT_REPORT,
# INPUT_KIND_VERSION, INPUT_SOURCE. GitHub sets GITHUB_ACTION_PATH,
# GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP.
#
# KEPSPEC_ACTION_DRY_RUN=1 prints every command a phase would run, one per
# line, as `+ ` and the arguments quoted with printf %q, and runs none of
# them. `verify_sha256` in that output is a function of this script.
#
# Exit codes: kepspec's own (0 passed, 1 failed, 2 error) for `run`; 2 for a
# missing or malformed input and for an unknown phase.
set -euo pipefail

dry_run() {
  [[ "${KEPSPEC_ACTION_DRY_RUN:-}" == 1 ]]
}

# The command line, each argument quoted as printf %q quotes it.
quoted() {
  local line="" arg
  for arg in "$@"; do
    line+="${line:+ }$(printf '%q' "$arg")"
  done
  printf '%s' "$line"
}

# Runs a command, or only prints it on a dry run. Real runs print it too,
# on standard error, for the job's log.
run() {
  if dry_run; then
    printf '+ %s\n' "$(quoted "$@")"
  else
    printf '+ %s\n' "$(quoted "$@")" >&2
    "$@"
  fi
}

# Appends one line to a file (GITHUB_PATH, GITHUB_OUTPUT), or only prints
# the command on a dry run.
append() {
  local file=$1 line=$2
  if dry_run; then
    printf '+ %s >> %s\n' "$(quoted printf '%s\n' "$line")" "$(printf '%q' "$file")"
  else
    printf '%s\n' "$line" >>"$file"
  fi
}

fail() {
  printf 'error: %s\n' "$1" >&2
  exit 2
}

# Fails unless the input (named as in action.yml) has a value.
require_input() {
  local name=$1 value=$2
  [[ -n "$value" ]] || fail "the input \`$name\` is required and was not given"
}

require_version() {
  local name=$1 value=$2
  require_input "$name" "$value"
  [[ "$value" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    fail "the input \`$name\` must be a release such as v1.37.0, not \`$value\`"
}

# A path as the caller meant it: relative paths are relative to the folder
# the action was started in (the workspace), not to the kepspec checkout
# the run phase works in.
absolute() {
  case "$1" in
    /*) printf '%s' "$1" ;;
    *) printf '%s/%s' "$caller" "$1" ;;
  esac
}

# The action's own checkout: GitHub's GITHUB_ACTION_PATH, else the folder
# above this script.
action_path() {
  if [[ -n "${GITHUB_ACTION_PATH:-}" ]]; then
    printf '%s' "$GITHUB_ACTION_PATH"
  else
    local here=${BASH_SOURCE[0]}
    if [[ "$here" == */* ]]; then here=${here%/*}; else here=.; fi
    (cd "$here/.." && pwd -P)
  fi
}

# The kepspec checkout to install from and to run in: the input `source`
# when it names a folder, else the action's checkout.
source_dir() {
  local src=${INPUT_SOURCE:-}
  if [[ -z "$src" || "$src" == preinstalled ]]; then
    action_path
    return
  fi
  src=$(absolute "$src")
  [[ -f "$src/Cargo.toml" ]] ||
    fail "the input \`source\` must be empty, \`preinstalled\` or a kepspec checkout; $src has no Cargo.toml"
  printf '%s' "$src"
}

# Where the action puts what it installs; its bin/ goes on PATH.
tools_dir() {
  printf '%s/kepspec-action' "${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
}

os_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) printf 'amd64' ;;
    aarch64 | arm64) printf 'arm64' ;;
    *) fail "no kind or kubectl release for this machine ($(uname -m))" ;;
  esac
}

# Checks FILE against FILE.sha256, which holds the digest alone (as
# dl.k8s.io publishes it).
verify_sha256() {
  local file=$1 sums=$2 want
  want=$(<"$sums")
  want=${want%%[[:space:]]*}
  printf '%s  %s\n' "$want" "$file" | sha256sum --check --strict
}

phase_install() {
  local kube_version=${INPUT_KUBERNETES_VERSION:-}
  local kind_version=${INPUT_KIND_VERSION:-}
  local source=${INPUT_SOURCE:-}
  require_version kubernetes-version "$kube_version"
  require_version kind-version "$kind_version"
  local src tools bin arch
  src=$(source_dir)
  tools=$(tools_dir)
  bin=$tools/bin
  arch=$(os_arch)

  run mkdir -p "$bin"
  if [[ "$source" == preinstalled ]]; then
    if ! dry_run && ! command -v kepspec >/dev/null; then
      fail "the input \`source\` is \`preinstalled\` but no kepspec is on PATH"
    fi
  else
    if ! dry_run && ! command -v cargo >/dev/null; then
      fail "cargo is not on PATH: set up a Rust toolchain before this action (GitHub's Ubuntu runners have one)"
    fi
    run cargo install --locked --root "$tools" --path "$src"
  fi

  # kind: the pinned release, whatever is on the runner (the node images
  # are those its release notes list).
  local kind_url="https://kind.sigs.k8s.io/dl/${kind_version}/kind-linux-${arch}"
  run cd "$bin"
  run curl -fsSLo "kind-linux-${arch}" "$kind_url"
  run curl -fsSLo "kind-linux-${arch}.sha256sum" "${kind_url}.sha256sum"
  run sha256sum --check --strict "kind-linux-${arch}.sha256sum"
  run mv "kind-linux-${arch}" kind
  run chmod +x kind
  run ./kind version

  # kubectl: the runner's, else the cluster's release from dl.k8s.io.
  if ! command -v kubectl >/dev/null; then
    local kubectl_url="https://dl.k8s.io/release/${kube_version}/bin/linux/${arch}/kubectl"
    run curl -fsSLo kubectl "$kubectl_url"
    run curl -fsSLo kubectl.sha256 "${kubectl_url}.sha256"
    run verify_sha256 kubectl kubectl.sha256
    run chmod +x kubectl
  fi

  if [[ -n "${GITHUB_PATH:-}" ]]; then
    append "$GITHUB_PATH" "$bin"
  elif ! dry_run; then
    printf 'note: GITHUB_PATH is not set; put %s on PATH before the run phase\n' "$bin" >&2
  fi
}

phase_run() {
  local kube_version=${INPUT_KUBERNETES_VERSION:-}
  local node_image=${INPUT_NODE_IMAGE:-}
  local target=${INPUT_TARGET:-}
  local tags=${INPUT_TAGS:-}
  local require=${INPUT_REQUIRE:-}
  local shard=${INPUT_SHARD:-}
  local junit=${INPUT_JUNIT:-}
  local report=${INPUT_REPORT:-}
  require_version kubernetes-version "$kube_version"
  if [[ -n "$shard" && ! "$shard" =~ ^[0-9]+/[0-9]+$ ]]; then
    fail "the input \`shard\` must be I/N, e.g. 1/2, not \`$shard\`"
  fi
  local src
  src=$(source_dir)

  local args=(run --cluster kind)
  if [[ -n "$target" ]]; then
    # A profile file of the caller's workspace, by a relative path.
    if [[ "$target" == *.yaml || "$target" == *.yml ]] && [[ "$target" != /* ]] &&
      [[ -f "$caller/$target" ]]; then
      target=$(absolute "$target")
    fi
    args+=(--target "$target")
  fi
  args+=(--node-image "${node_image:-kindest/node:${kube_version}}")
  [[ -z "$tags" ]] || args+=(--tags "$tags")
  # One expression per word; one per line when any holds a space.
  local expressions=() expr
  if [[ "$require" == *$'\n'* ]]; then
    mapfile -t expressions <<<"$require"
  else
    read -r -a expressions <<<"$require"
  fi
  for expr in "${expressions[@]}"; do
    expr=${expr#"${expr%%[![:space:]]*}"}
    expr=${expr%"${expr##*[![:space:]]}"}
    [[ -z "$expr" ]] || args+=(--require "$expr")
  done
  [[ -z "$shard" ]] || args+=(--shard "$shard")
  if [[ -n "$junit" ]]; then
    junit=$(absolute "$junit")
    args+=(--junit "$junit")
  fi
  if [[ -n "$report" ]]; then
    report=$(absolute "$report")
    args+=(--report "$report")
  fi
  [[ -z "${GITHUB_STEP_SUMMARY:-}" ]] || args+=(--summary "$GITHUB_STEP_SUMMARY")

  # The outputs are set before the run, so they are there when it fails.
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    append "$GITHUB_OUTPUT" "junit=$junit"
    append "$GITHUB_OUTPUT" "report=$report"
  fi
  # The bundled target builds its controller image from the checkout's
  # clusters/Dockerfile and applies clusters/manifests/: run in the checkout.
  run cd "$src"
  run kepspec "${args[@]}"
}

main() {
  # The folder the action was started in (GitHub: the workspace).
  caller=$(pwd -P)
  case "${1:-}" in
    install) phase_install ;;
    run) phase_run ;;
    *)
      printf "usage: ci/action.sh install|run\nerror: unknown phase '%s'\n" "${1:-}" >&2
      exit 2
      ;;
  esac
}

main "$@"
