#!/usr/bin/env python3
"""The CI examples of docs/ci.md, tested as far as this machine allows: the
GitHub Actions workflow and the GitLab job are parsed as YAML, their
`torchalias check` command lines are run on a copy of the check project (a git
repository with a target branch, for --diff), and what they hand on is
checked: the SARIF file the upload step or the artifact names exists and is a
SARIF 2.1.0 log with the expected findings. Installing packages, the caches
and the upload itself need the CI services and are not run.

usage: ci_examples_test.py TORCHALIAS MOCK_TORCH_INCLUDE WORK_DIR
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))
docs = os.path.join(here, "..", "..", "docs", "ci")
failures = []


def expect(condition, message, detail=""):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)
        if detail:
            print("     " + str(detail)[-3000:])


def project(work, mock, name):
    root = os.path.join(work, name)
    subprocess.run([os.path.join(here, "..", "Inputs", "check-project", "setup.sh"),
                    root, mock], check=True)
    # The workflows configure into build/.
    os.makedirs(os.path.join(root, "build"))
    shutil.move(os.path.join(root, "compile_commands.json"), os.path.join(root, "build"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], cwd=root, check=True)
    subprocess.run(git + ["add", "src", ".clang-tidy"], cwd=root, check=True)
    subprocess.run(git + ["commit", "-qm", "base"], cwd=root, check=True)
    return root


def run(command, root, env):
    expanded = re.sub(r"\$(\w+)", lambda m: env.get(m[1], m[0]), command)
    argv = shlex.split(expanded)
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)


def sarif_findings(path):
    log = json.load(open(path))
    assert log["version"] == "2.1.0"
    return sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] + ":" +
                  str(r["locations"][0]["physicalLocation"]["region"]["startLine"])
                  for r in log["runs"][0]["results"])


def main():
    torchalias = os.path.abspath(sys.argv[1])
    mock, work = os.path.abspath(sys.argv[2]), sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    env = dict(os.environ, PATH=os.path.dirname(torchalias) + os.pathsep + os.environ["PATH"],
               XDG_CACHE_HOME=os.path.join(work, "cache"))

    # GitHub: the check step writes the SARIF the upload step sends.
    workflow = yaml.safe_load(open(os.path.join(docs, "github-code-scanning.yml")))
    steps = workflow["jobs"]["torchalias"]["steps"]
    check = [s for s in steps if "torchalias check" in s.get("run", "")]
    upload = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    expect(len(check) == 1 and len(upload) == 1, "github: one check step and one upload step")
    expect(upload[0].get("if") == "always()", "github: the upload runs when the check fails")
    root = project(work, mock, "github")
    # The committed baseline accepts the finding in late.cpp only.
    subprocess.run([torchalias, "check", "-p", "build", "--quiet", "--write-baseline",
                    ".torchalias-baseline.json", "src/late.cpp"], cwd=root, env=env,
                   capture_output=True)
    result = run(check[0]["run"], root, env)
    expect(result.returncode == 1, "github: the check step fails on a new finding",
           result.stderr)
    sarif = os.path.join(root, upload[0]["with"]["sarif_file"])
    expect(os.path.exists(sarif) and sarif_findings(sarif) == ["src/view.cpp:5"],
           "github: the uploaded SARIF holds the new finding only",
           sarif_findings(sarif) if os.path.exists(sarif) else "no " + sarif)

    # GitLab: --diff against the target branch, the SARIF kept as artifact.
    job = yaml.safe_load(open(os.path.join(docs, "gitlab-ci.yml")))["torchalias"]
    commands = [c for c in job["script"] if "torchalias check" in c]
    expect(len(commands) == 1, "gitlab: one check command")
    root = project(work, mock, "gitlab")
    subprocess.run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=root, check=True)
    with open(os.path.join(root, "src", "clean.cpp"), "a") as out:
        out.write("void more(torch::Tensor x) {\n  auto r = x.select(0, 0);\n  r.add_(1);\n}\n")
    env_gl = dict(env, CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main")
    result = run(commands[0], root, env_gl)
    expect(result.returncode == 1, "gitlab: the job fails on a finding on a changed line",
           result.stderr)
    artifact = os.path.join(root, job["artifacts"]["paths"][0])
    expect(job["artifacts"]["when"] == "always", "gitlab: the SARIF is kept when the job fails")
    expect(os.path.exists(artifact) and sarif_findings(artifact) == ["src/clean.cpp:6"],
           "gitlab: the artifact holds only the finding on the changed lines",
           sarif_findings(artifact) if os.path.exists(artifact) else "no " + artifact)

    if failures:
        sys.exit(f"{len(failures)} expectation(s) failed")


if __name__ == "__main__":
    main()
