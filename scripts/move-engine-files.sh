#!/bin/bash
# Moves engine files into an area folder and rewrites every reference to them (includes, CMake,
# docs): scripts/move-engine-files.sh AREA STEM... (e.g. `rollingsync rollout_plan max_update`).
# Run clang-format -i on the changed C++ files afterwards (include order) and add the folder to
# engine/CMakeLists.txt's glob if it is new.
set -euo pipefail
cd "$(dirname "$0")/.."
area=$1
shift
mkdir -p "engine/$area"
for stem in "$@"; do
  for ext in h cc; do
    if [ -f "engine/$stem.$ext" ]; then git mv "engine/$stem.$ext" "engine/$area/$stem.$ext"; fi
  done
  git ls-files -z | xargs -0 grep -lP "engine/$stem(?![\\w/])" 2>/dev/null |
    while read -r f; do perl -pi -e "s{engine/$stem(?![\\w/])}{engine/$area/$stem}g" "$f"; done
done
