#!/usr/bin/env bash
# ABI stage (docs/abi.md): libmfusim.so.1 against the committed baselines in abi/. scripts/test.sh runs every
# ci/*.sh; this one is the same as abi/check.sh.
exec "$(dirname "${BASH_SOURCE[0]}")/../abi/check.sh" "$@"
