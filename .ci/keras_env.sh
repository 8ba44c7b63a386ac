#!/usr/bin/env bash
# A venv for tests/keras_backends on a non-TensorFlow Keras backend: JAX on CPU, keras-hub 0.32 without its
# tensorflow-text requirement, and no tensorflow_text at all (what a user without tensorflow_text has).
#
#   bash .ci/keras_env.sh VENV      # from the repo root; creates VENV (or brings an existing one up to date)
#   . VENV/bin/activate && KERAS_BACKEND=jax python -m pytest -q -m keras_backends tests/keras_backends
#
# Idempotent: a second run reuses VENV and pip finds everything installed. Prints what it installed.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${1:?usage: bash .ci/keras_env.sh VENV (the virtual environment to create or update)}"
KERAS_HUB="keras-hub==0.32.0"

python3 -m venv "$venv"
py="$venv/bin/python"
"$py" -m pip install --quiet --upgrade pip
# The package (its own requirements: tensorflow, numpy, tqdm) with Keras, JAX on CPU and the test tools.
"$py" -m pip install --quiet -e . "tensorflow==2.21.*" "keras==3.15.*" "jax[cpu]==0.10.*" \
    "pytest==9.2.0" "pytest-xdist==3.8.0" "hypothesis==6.170.17"
# keras-hub without its dependencies, then every requirement its metadata lists except tensorflow-text
# (and the optional extras).
"$py" -m pip install --quiet --no-deps "$KERAS_HUB"
mapfile -t hub_requirements < <("$py" - <<'PY'
from importlib.metadata import requires

from packaging.requirements import Requirement

for line in requires("keras-hub") or []:
    requirement = Requirement(line)
    if requirement.name.lower().replace("_", "-") == "tensorflow-text":
        continue  # the point of this environment
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
        continue  # an extra, or not for this platform
    print(str(requirement).split(";")[0].strip())
PY
)
# pip then says "keras-hub 0.32.0 requires tensorflow-text ..., which is not installed": expected, not a failure.
"$py" -m pip install --quiet "${hub_requirements[@]}"

# tensorflow_text must not be importable here (a leftover from an earlier install would hide the point).
if "$py" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('tensorflow_text') is None)"; then
    echo "keras_env: tensorflow_text is installed in $venv; removing it" >&2
    "$py" -m pip uninstall --quiet --yes tensorflow-text
fi

echo "keras_env: $venv ready; keras-hub's requirements installed without tensorflow-text: ${hub_requirements[*]}"
"$py" -m pip list --format=freeze 2>/dev/null | grep -i -E \
    '^(tf-wordpiece|tensorflow|keras|keras-hub|jax|jaxlib|numpy|pytest|hypothesis|tokenizers)==' || true
"$py" -c "import importlib.util as u; print('keras_env: tensorflow_text importable:', u.find_spec('tensorflow_text') is not None)"
