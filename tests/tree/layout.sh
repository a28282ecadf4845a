#!/bin/sh
# The tree's shape (tests/tree/check_tree.py): first that the checker catches
# each kind of violation, then that the tree has none.
set -u
py=${PYTHON3:-python3}
"$py" "$TESTS_SRCDIR/tree/check_tree.py" --self-test || exit 1
"$py" "$TESTS_SRCDIR/tree/check_tree.py" "$TESTS_SRCDIR/.."
