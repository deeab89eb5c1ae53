#!/usr/bin/env bash
# Fails the verify-memory action unless the verification passed.
set -euo pipefail
if [[ "${VERDICT:-}" != pass ]]; then
  echo "::error::memory verification: ${VERDICT:-error} (pinbot exited ${CODE:-?}); see the step summary and the report artifact" >&2
  exit 1
fi
echo "memory verification passed"
