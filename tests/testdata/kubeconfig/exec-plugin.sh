#!/bin/sh
# A fixture exec credential plugin. Echoes the apiVersion it was asked for (from
# KUBERNETES_EXEC_INFO), the token in FIXTURE_TOKEN and, when FIXTURE_EXPIRY is set, that
# expirationTimestamp. Appends one line per run to FIXTURE_COUNT_FILE so tests can count
# runs. FIXTURE_FAIL=1 makes it fail like a plugin whose login expired.
if [ -n "$FIXTURE_COUNT_FILE" ]; then echo run >> "$FIXTURE_COUNT_FILE"; fi
# FIXTURE_OUTPUT_FILE: print that file verbatim instead (tests of odd plugin output; the test
# rewrites it between runs).
if [ -n "$FIXTURE_OUTPUT_FILE" ]; then cat "$FIXTURE_OUTPUT_FILE"; exit 0; fi
if [ "$FIXTURE_FAIL" = "1" ]; then
  echo "error: you must log in again (fixture)" >&2
  exit 3
fi
api=$(printf '%s' "$KUBERNETES_EXEC_INFO" | sed -n 's/.*"apiVersion":"\([^"]*\)".*/\1/p')
[ -n "$FIXTURE_API_VERSION" ] && api=$FIXTURE_API_VERSION
expiry=""
[ -n "$FIXTURE_EXPIRY" ] && expiry=",\"expirationTimestamp\":\"$FIXTURE_EXPIRY\""
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"%s}}\n' \
  "$api" "$FIXTURE_TOKEN" "$expiry"
