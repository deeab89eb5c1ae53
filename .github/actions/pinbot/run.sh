#!/usr/bin/env bash
# Runs `pinbot action` for the pinbot action with the inputs given as
# PINBOT_* variables. The runner's own variables (GITHUB_EVENT_NAME,
# GITHUB_EVENT_PATH, GITHUB_API_URL, GITHUB_REPOSITORY) and GITHUB_TOKEN
# reach pinbot through the environment; the token is never an argument.
# pinbot's lines (one per pull request judged, and what it could not do)
# go to the log and the step summary; its exit status is the step's.
set -euo pipefail

args=(action --log-level "${PINBOT_LOG_LEVEL:-info}")
case "${PINBOT_DRY_RUN:-false}" in
  true) args+=(--dry-run) ;;
  false) ;;
  *) echo "::error::dry-run must be true or false, not '${PINBOT_DRY_RUN}'" >&2; exit 1 ;;
esac
case "${PINBOT_ADVISORIES:-true}" in
  true) ;;
  false) args+=(--no-advisories) ;;
  *) echo "::error::advisories must be true or false, not '${PINBOT_ADVISORIES}'" >&2; exit 1 ;;
esac

echo "pinbot ${args[*]} (event ${GITHUB_EVENT_NAME:-?}, ${GITHUB_REPOSITORY:-?})"
out=$(mktemp)
code=0
"${PINBOT:?no pinbot installed}" "${args[@]}" >"$out" || code=$?
cat "$out"
echo "exit-code=$code" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
{
  echo "### pinbot: ${GITHUB_EVENT_NAME:-event}"
  echo
  if [[ -s "$out" ]]; then
    sed 's/^/- /' "$out"
  fi
  if [[ "$code" != 0 ]]; then
    echo
    echo "\`pinbot action\` exited $code; see the step's log."
  fi
} >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
rm -f "$out"
if [[ "$code" != 0 ]]; then
  echo "::error::pinbot action exited $code; see the log above" >&2
fi
exit "$code"
