#!/usr/bin/env bash
# Runs pinbot verify-memory for the verify-memory action with the inputs
# given as VM_* variables. It always exits 0 so that the report is uploaded;
# the action's last step fails the job from the outputs (verdict and
# exit-code), which pinbot writes to $GITHUB_OUTPUT itself.
set -uo pipefail

args=(verify-memory --report "${VM_REPORT:-memory-report}")
flag() { if [[ -n "$2" ]]; then args+=("$1" "$2"); fi; }
# metrics-url is passed on so that pinbot refuses it and says why (ADR 0299).
flag --metrics-url "${VM_METRICS_URL:-}"
flag --self-reported-metrics-url "${VM_SELF_REPORTED_METRICS_URL:-}"
if [[ -n "${VM_SELF_REPORTED_METRICS_URL:-}" ]]; then
  flag --metric "${VM_METRIC:-}"
  flag --bearer-token-file "${VM_BEARER_TOKEN_FILE:-}"
  flag --ca-file "${VM_CA_FILE:-}"
fi
flag --pid "${VM_PID:-}"
flag --cgroup "${VM_CGROUP:-}"
flag --pod "${VM_POD:-}"
flag --selector "${VM_SELECTOR:-}"
flag --container "${VM_CONTAINER:-}"
flag --kubeconfig "${VM_KUBECONFIG:-}"
flag --duration "${VM_DURATION:-}"
flag --interval "${VM_INTERVAL:-}"
flag --warmup "${VM_WARMUP:-}"
flag --ceiling "${VM_CEILING:-}"
flag --max-growth "${VM_MAX_GROWTH:-}"
flag --baseline "${VM_BASELINE:-}"
flag --max-slope-increase "${VM_MAX_SLOPE_INCREASE:-}"
flag --max-peak-increase "${VM_MAX_PEAK_INCREASE:-}"
if [[ -n "${VM_COMMAND:-}" ]]; then
  read -ra command <<<"$VM_COMMAND"
  args+=(-- "${command[@]}")
fi

echo "pinbot ${args[*]}"
code=0
"${PINBOT:?no pinbot installed}" "${args[@]}" || code=$?
echo "exit-code=$code" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
if ! grep -q '^verdict=' "$GITHUB_OUTPUT"; then
  # pinbot stopped before writing a report (bad flags): say so.
  echo "verdict=error" >>"$GITHUB_OUTPUT"
  {
    echo "### Memory verification: ⚠️ error"
    echo
    echo "\`pinbot verify-memory\` exited $code before writing a report; see the step's log."
  } >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
exit 0
