#!/usr/bin/env bash
# Installs stepscope on Debian/Ubuntu: the system packages it builds with (apt, when run as root)
# and then `pip install .`, which builds the library, the `stepscope` command and the Python
# module, and puts `stepscope` on PATH.
#
#   bash scripts/install.sh            # from the repository root, or from anywhere
#   STEPSCOPE_SKIP_APT=1 bash scripts/install.sh   # packages already there
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(build-essential cmake ninja-build libsimdjson-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libisal-dev libsqlite3-dev clang clang-format
          clang-tidy libclang-rt-14-dev)

if [[ "${STEPSCOPE_SKIP_APT:-0}" != 1 ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get > /dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # A Python without pip or headers (Debian's own) gets them from apt as well.
    if ! python3 -m pip --version > /dev/null 2>&1 ||
       ! python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
      packages+=(python3 python3-dev python3-pip python3-venv)
    fi
    apt-get install -y -qq --no-install-recommends "${packages[@]}" > /dev/null
  else
    echo "install.sh: not root (or no apt-get): skipping system packages; need: ${packages[*]}" >&2
  fi
fi

# Debian's own Python refuses `pip install` outside a virtual environment (PEP 668) unless told.
export PIP_BREAK_SYSTEM_PACKAGES=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_ROOT_USER_ACTION=ignore
python3 -m pip install --quiet "$repo"
# pyenv and similar keep a shim per command: refresh it so `stepscope` resolves at once.
if command -v pyenv > /dev/null; then pyenv rehash; fi
command -v stepscope > /dev/null || echo "install.sh: stepscope installed to $(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'), which is not on PATH" >&2
echo "install.sh: $(stepscope --version 2>/dev/null || echo 'stepscope') installed"
