"""A wheel must run on machines other than the one that built it, and a user's newer compiler must
not turn a new warning into a failed `pip install`. Configures the CMake project exactly as
pyproject.toml's [tool.scikit-build] does (SKBUILD defined, its cmake.define options) and reads
the compile lines CMake would use: fast, no build."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser from PyPI
    tomllib = pytest.importorskip("tomli")


def configure(build_dir: Path, defines: dict[str, str]) -> list[dict[str, Any]]:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH: the build flags were not checked")
    arguments = [cmake, "-S", str(REPO), "-B", str(build_dir)]
    if shutil.which("ninja"):
        arguments += ["-G", "Ninja"]
    arguments += [f"-D{name}={value}" for name, value in defines.items()]
    arguments += [f"-DPython_EXECUTABLE={sys.executable}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    done = subprocess.run(arguments, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    commands: list[dict[str, Any]] = json.loads((build_dir / "compile_commands.json").read_text())
    assert commands, "CMake wrote no compile commands"
    return commands


def scikit_build_defines(install_dir: Path) -> dict[str, str]:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    config = pyproject["tool"]["scikit-build"]
    defines = {name: str(value) for name, value in config["cmake"]["define"].items()}
    defines["CMAKE_BUILD_TYPE"] = config["cmake"]["build-type"]
    # What scikit-build-core defines for the project's CMake code.
    defines["SKBUILD"] = "2"
    defines["SKBUILD_PROJECT_NAME"] = pyproject["project"]["name"]
    for folder in ("PLATLIB", "DATA", "HEADERS", "SCRIPTS", "METADATA", "NULL"):
        defines[f"SKBUILD_{folder}_DIR"] = str(install_dir / folder.lower())
    return defines


def test_pip_build_is_portable_and_does_not_treat_warnings_as_errors(tmp_path: Path) -> None:
    commands = configure(tmp_path / "wheel", scikit_build_defines(tmp_path / "install"))
    lines = [entry["command"] for entry in commands]
    assert not [line for line in lines if "-march=native" in line]
    assert not [line for line in lines if "-Werror" in line]
    library = [line for line in lines if "stepscope_core.dir" in line]
    assert library, "no library source among the compile commands"
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert all("-march=x86-64-v2" in line for line in library), library[0]
    # The module and the command are in the wheel, so they are among the compile lines too.
    assert any("bindings.cpp" in line for line in lines)
    assert any("/cli/" in line for line in lines)


def test_developer_build_treats_warnings_as_errors(tmp_path: Path) -> None:
    commands = configure(
        tmp_path / "dev",
        {
            "STEPSCOPE_BUILD_TESTS": "OFF",
            "STEPSCOPE_BUILD_CLI": "ON",
            "CMAKE_BUILD_TYPE": "Release",
        },
    )
    cli = [entry["command"] for entry in commands if "/cli/" in entry["file"]]
    assert cli and all("-Werror" in line for line in cli)
    assert not [entry for entry in commands if "-march=native" in entry["command"]]


def cli_compile_lines(build_dir: Path, defines: dict[str, str]) -> list[str]:
    base = {"STEPSCOPE_BUILD_TESTS": "OFF", "STEPSCOPE_BUILD_CLI": "ON"}
    commands = configure(build_dir, {**base, **defines})
    return [entry["command"] for entry in commands if "stepscope_core.dir" in entry["command"]]


def test_profile_guided_builds_name_profiles_by_path_inside_the_build(tmp_path: Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH: the PGO flags were not checked")
    probe = [cmake, "-S", str(REPO), "-B", str(tmp_path / "probe"), "-DSTEPSCOPE_PGO=use"]
    probed = subprocess.run(
        [*probe, "-DSTEPSCOPE_BUILD_TESTS=OFF"], capture_output=True, text=True, check=False
    )
    if "STEPSCOPE_PGO needs GCC" in probed.stderr:
        pytest.skip("the C++ compiler is not GCC 11 or newer: the PGO flags were not checked")
    profiles = tmp_path / "profiles"
    plain = cli_compile_lines(tmp_path / "plain", {})
    assert plain and not [line for line in plain if "-fprofile-" in line]
    generate = cli_compile_lines(
        tmp_path / "generate", {"STEPSCOPE_PGO": "generate", "STEPSCOPE_PGO_DIR": str(profiles)}
    )
    assert all(f"-fprofile-generate={profiles}" in line for line in generate)
    assert all(f"-fprofile-prefix-path={tmp_path / 'generate'}" in line for line in generate)
    use = cli_compile_lines(
        tmp_path / "use", {"STEPSCOPE_PGO": "use", "STEPSCOPE_PGO_DIR": str(profiles)}
    )
    assert all(f"-fprofile-use={profiles}" in line for line in use)
    assert all(f"-fprofile-prefix-path={tmp_path / 'use'}" in line for line in use)


def test_an_unknown_pgo_mode_is_refused(tmp_path: Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake on PATH: the PGO option was not checked")
    arguments = [cmake, "-S", str(REPO), "-B", str(tmp_path), "-DSTEPSCOPE_PGO=sometimes"]
    arguments += ["-DSTEPSCOPE_BUILD_TESTS=OFF"]
    done = subprocess.run(arguments, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "STEPSCOPE_PGO is 'sometimes'" in done.stderr
