# lit configuration for the torchalias check tests.
#
# The suite runs once per clang-tidy flavour, chosen with --param tidy=plugin
# (Debian's clang-tidy loading our plugin) or --param tidy=driver (our
# torchalias-tidy binary).

import os
import shlex

import lit.formats

tidy = lit_config.params.get("tidy", "plugin")
if tidy not in ("plugin", "driver"):
    lit_config.fatal("--param tidy must be 'plugin' or 'driver', not %r" % tidy)

config.name = "torchalias-" + tidy
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".cpp", ".test"]
config.excludes = ["Inputs", "bench", "blind", "unit", "gpu", "cmake", "clangd"]
# The `torchalias check` tests (test/check/) run the runner, not a clang-tidy:
# once is enough, in the plugin flavour.
if tidy == "driver" or not config.torchalias:
    config.excludes.append("check")
# --param mock_only=1: only what runs on the mock headers through clang-tidy,
# the suite scripts/test-llvm.sh runs on the other LLVM releases.
if lit_config.params.get("mock_only"):
    config.excludes += ["real", "check"]
config.available_features.add("llvm-%s" % config.llvm_major)
# How `clang-tidy --dump-config` writes CheckOptions: a list in 14, a mapping
# from 15 (docs/llvm-releases.md).
config.substitutions.append(("%dump_form", "LIST" if int(config.llvm_major) <= 14 else "MAP"))
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.torchalias_obj_root, "test", tidy)

if tidy == "plugin":
    tidy_command = "%s --load=%s" % (config.clang_tidy, config.plugin)
else:
    tidy_command = config.torchalias_tidy

python = shlex.quote(config.python)
runner = os.path.join(config.test_source_root, "check_clang_tidy.py")
config.substitutions.append(
    ("%check_clang_tidy", "%s %s --tidy %s --filecheck %s" % (
        python, runner, shlex.quote(tidy_command), config.filecheck)))
config.substitutions.append(("%clang_tidy", tidy_command))
config.substitutions.append(("%torchalias_tidy", config.torchalias_tidy))
config.substitutions.append(("%torchalias", config.torchalias))
config.substitutions.append(
    ("%check_project", os.path.join(config.test_source_root, "Inputs", "check-project")))
config.substitutions.append(
    ("%mock_include", os.path.join(config.test_source_root, "Inputs", "mock-libtorch")))
config.substitutions.append(("%plugin", config.plugin))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(("%python", python))
config.substitutions.append(
    ("%mock_torch", "-std=c++17 -isystem " +
     os.path.join(config.test_source_root, "Inputs", "mock-libtorch")))
config.substitutions.append(
    ("%real_torch", "-std=c++17 " + config.real_torch_flags))

if config.real_torch_flags:
    config.available_features.add("real-libtorch")
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
# `not`, `count` and FileCheck come from LLVM's tools.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, os.environ.get("PATH", "")])
