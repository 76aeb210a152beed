#!/usr/bin/env bash
# `npm test`: the lint, then the typecheck beside the tests (tsc keeps one core busy for 10 to 15 s while
# vitest starts its files). Either failing fails the test command, with its own exit code.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run -s lint || exit $?
npm run -s typecheck &
typecheck=$!
npx vitest run "$@"
tests=$?
wait "$typecheck"
types=$?
if [ "$types" != 0 ]; then echo "npm test: the typecheck failed (exit $types)" >&2; fi
exit $(( tests != 0 ? tests : types ))
