#!/bin/bash
# the command behind this directory's logs (from the tree's top, as root,
# after make): the harness test of make check, its runner logs kept here
cd "$(dirname "$0")/../.." || exit 1
time env DEVICE_TEST_LOGS=results/device-env-2026-11-25 ./scripts/tests/device_test.sh \
	>results/device-env-2026-11-25/device_test.log 2>&1
