#!/usr/bin/env python3
"""The composite action (action.yml), its shell steps run here as a runner
runs them: `bash --noprofile --norc -eo pipefail`, with stand-ins for the
runner's environment (GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY,
RUNNER_TEMP, ...), the `${{ }}` expressions of `env:`, `with:` and `if:`
evaluated from the inputs and the earlier steps' outputs. Steps that `use`
another action (the cache, the SARIF upload) are not run: their evaluated
`with:` is checked. apt-get, sudo, cmake and the install script are
stand-ins that record their arguments; torchlint is the real one.

    action_test.py SOURCE BIN_DIR MODEL_DATABASE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
import compile_database  # noqa: E402

SOURCE, BIN, MODEL = (os.path.realpath(a) for a in sys.argv[1:4])
ACTION = yaml.safe_load(open(os.path.join(SOURCE, "action.yml")))
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


class Run:
    """One use of the action: `inputs` as a workflow's `with:` gives them."""

    def __init__(self, scratch, inputs, path, action_path=SOURCE):
        self.work = tempfile.mkdtemp(dir=scratch)
        self.temp = tempfile.mkdtemp(dir=scratch)
        self.inputs = {name: str(spec.get("default", ""))
                       for name, spec in ACTION["inputs"].items()}
        unknown = set(inputs) - set(self.inputs)
        assert not unknown, f"not inputs of action.yml: {unknown}"
        self.inputs.update(inputs)
        self.path = path
        self.action_path = action_path
        self.steps = {}      # id -> outputs
        self.used = []       # (uses, evaluated with) of the steps not run
        self.results = []    # (name, exit status)
        self.logs = {}
        self.summary = ""

    def value(self, expression):
        expression = expression.strip()
        if expression.startswith("inputs."):
            return self.inputs[expression[len("inputs."):]]
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if m:
            return self.steps.get(m[1], {}).get(m[2], "")
        return {"github.action_path": self.action_path,
                "github.sha": "0123abcd", "runner.os": "Linux"}[expression]

    def substitute(self, text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.value(m[1]), str(text))

    def condition(self, text, failed):
        """The subset of GitHub's expressions that action.yml uses."""
        if text is None:
            return not failed
        text = text.replace("${{", "").replace("}}", "")
        uses_status = "always()" in text
        text = re.sub(r"always\(\)", "True", text)
        text = re.sub(r"(inputs|steps)\.[\w.-]+",
                      lambda m: repr(self.value(m[0])), text)
        text = text.replace("&&", " and ").replace("||", " or ")
        result = eval(text, {"__builtins__": {}}, {"True": True})
        return bool(result) and (uses_status or not failed)

    def go(self):
        failed = False
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env["PATH"] = self.path
        for index, step in enumerate(ACTION["runs"]["steps"]):
            name = step.get("name", f"step {index}")
            if not self.condition(step.get("if"), failed):
                continue
            if "uses" in step:
                self.used.append((step["uses"], {k: self.substitute(v)
                                                 for k, v in step.get("with", {}).items()}))
                continue
            check(step.get("shell") == "bash", f"{name}: not a bash step")
            files = {k: os.path.join(self.temp, f"{k}-{index}") for k in
                     ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
            for f in files.values():
                open(f, "w").close()
            script = os.path.join(self.temp, f"step-{index}.sh")
            with open(script, "w") as out:
                out.write(step["run"])
            step_env = dict(env, **files, RUNNER_TEMP=self.temp, RUNNER_OS="Linux",
                            GITHUB_WORKSPACE=self.work, GITHUB_ACTION_PATH=self.action_path,
                            CI="true")
            step_env.update({k: self.substitute(v) for k, v in step.get("env", {}).items()})
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                  cwd=self.work, env=step_env, capture_output=True, text=True)
            self.logs[name] = done.stdout + done.stderr
            self.results.append((name, done.returncode))
            outputs = dict(line.split("=", 1) for line in
                           open(files["GITHUB_OUTPUT"]).read().splitlines() if "=" in line)
            if "id" in step:
                self.steps[step["id"]] = outputs
            for line in open(files["GITHUB_PATH"]).read().splitlines():
                env["PATH"] = line + os.pathsep + env["PATH"]
            self.summary += open(files["GITHUB_STEP_SUMMARY"]).read()
            failed = failed or done.returncode != 0
        return self

    def status(self, name):
        return dict(self.results).get(name)

    def output(self, name):
        return self.steps.get("analyze", {}).get(name)

    def upload(self):
        return next((w for uses, w in self.used if "upload-sarif" in uses), None)


def database(folder, names):
    """The units of tests/data, compiled as the test-inputs are."""
    os.makedirs(folder, exist_ok=True)
    return compile_database.write(
        MODEL, os.path.join(folder, "compile_commands.json"),
        [os.path.join(SOURCE, "tests", "data", name) for name in names])


def stand_in(folder, name, body=""):
    """A program that records its arguments in folder/NAME.calls."""
    path = os.path.join(folder, name)
    with open(path, "w") as out:
        out.write(f'#!/bin/sh\necho "$@" >> "{folder}/{name}.calls"\n{body}\n')
    os.chmod(path, 0o755)


def calls(folder, name):
    path = os.path.join(folder, f"{name}.calls")
    return open(path).read() if os.path.exists(path) else ""


def main():
    scratch = tempfile.mkdtemp(prefix="torchlint-action.")
    try:
        system_path = os.environ["PATH"]
        with_torchlint = BIN + os.pathsep + system_path
        program = database(os.path.join(scratch, "program"), ["cli_program.cpp"])
        two_units = database(os.path.join(scratch, "two"), ["plain.cpp", "cli_program.cpp"])

        # Findings: the log is written and uploaded, then the verdict fails.
        first = Run(scratch, {"install": "none", "database": program}, with_torchlint).go()
        check(first.status("Install torchlint") == 0, "install 'none' with torchlint on PATH")
        check(first.output("exit-code") == "1", f"exit-code {first.output('exit-code')}, not 1")
        check(int(first.output("findings") or 0) >= 3, "the findings were not counted")
        sarif = os.path.join(first.work, "torchlint.sarif")
        check(os.path.isfile(sarif), "no SARIF log in the workspace")
        check(first.upload() == {"sarif_file": "torchlint.sarif", "category": "torchlint"},
              f"upload-sarif got {first.upload()}")
        check(first.status("Verdict") == 1, "the verdict did not fail on findings")
        check("[torch-device-mismatch]" in first.logs["Analyze"], "the text is not in the log")
        check(os.path.isdir(os.path.join(first.work, ".torchlint-cache")),
              "the cache folder was not used")
        check("exit status 1" in first.summary, "no step summary")

        # fail-on: 'none' reports without failing; 'error' still fails on an error.
        quiet = Run(scratch, {"install": "none", "database": program, "fail-on": "none",
                              "cache": "false"}, with_torchlint).go()
        check(quiet.output("exit-code") == "0" and quiet.status("Verdict") == 0,
              "fail-on 'none' failed the step")
        check(quiet.output("findings") == first.output("findings"), "fail-on changed the log")
        check(not any("actions/cache" in uses for uses, _ in quiet.used),
              "cache 'false' still restored the cache")

        # A baseline holding every finding: nothing new, nothing fails.
        known = Run(scratch, {"install": "none", "database": program, "baseline": sarif},
                    with_torchlint).go()
        check(known.output("findings") == "0", f"{known.output('findings')} findings beside the baseline")
        check(known.status("Verdict") == 0, "a baseline of every finding still failed")

        # A shard: its own part, and a category of its own.
        shard = Run(scratch, {"install": "none", "database": two_units, "shard": "2/2",
                              "upload": "false"}, with_torchlint).go()
        check(shard.output("category") == "torchlint/shard-2-of-2", f"category {shard.output('category')}")
        log = json.load(open(os.path.join(shard.work, "torchlint.sarif")))
        check(log["runs"][0]["automationDetails"]["id"].startswith("torchlint/shard-2-of-2"),
              "the shard's log does not carry its category")
        check(shard.upload() is None, "upload 'false' still uploaded")
        other = Run(scratch, {"install": "none", "database": two_units, "shard": "1/2",
                              "upload": "false"}, with_torchlint).go()
        together = int(shard.output("findings")) + int(other.output("findings"))
        whole = Run(scratch, {"install": "none", "database": two_units, "upload": "false"},
                    with_torchlint).go()
        check(together == int(whole.output("findings")),
              f"the shards found {together}, the whole {whole.output('findings')}")

        # More options, passed through.
        narrow = Run(scratch, {"install": "none", "database": program,
                               "checks": "-*,torch-unchecked-cuda", "args": "-j 1 --quiet"},
                     with_torchlint).go()
        rules = {r["ruleId"] for r in json.load(open(os.path.join(narrow.work, "torchlint.sarif")))
                 ["runs"][0]["results"]}
        check(rules == {"torch-unchecked-cuda"}, f"checks gave {rules}")

        # A bad database: exit 2 fails the verdict, with its own message.
        bad = Run(scratch, {"install": "none", "database": "/nonexistent/build"},
                  with_torchlint).go()
        check(bad.output("exit-code") == "2" and bad.status("Verdict") == 2,
              "a missing database did not fail with 2")

        # install 'none' without torchlint: one clear error, nothing after it.
        missing = Run(scratch, {"install": "none", "database": program}, system_path).go()
        check(missing.status("Install torchlint") == 2 and
              "torchlint is not on PATH" in missing.logs["Install torchlint"],
              "install 'none' without torchlint did not stop")
        check(missing.status("Analyze") is None, "the analysis ran without torchlint")

        # install 'package': apt-get installs the named .deb (stand-ins).
        tools = os.path.join(scratch, "tools")
        os.makedirs(tools)
        stand_in(tools, "apt-get")
        stand_in(tools, "sudo", 'exec "$@"')
        package = Run(scratch, {"install": "package", "package": "dist/torchlint_0.1.0_amd64.deb",
                                "database": program, "upload": "false"},
                      tools + os.pathsep + with_torchlint).go()
        check(package.status("Install torchlint") == 0, package.logs.get("Install torchlint", ""))
        check(f"install -y -q {package.work}/dist/torchlint_0.1.0_amd64.deb"
              in calls(tools, "apt-get"), f"apt-get was called with: {calls(tools, 'apt-get')}")
        unnamed = Run(scratch, {"install": "package", "database": program},
                      tools + os.pathsep + with_torchlint).go()
        check(unnamed.status("Install torchlint") == 2, "install 'package' without a package")

        # install 'source': the action's checkout is configured and built,
        # and its bin folder put on PATH for the next steps (stand-ins).
        checkout = os.path.join(scratch, "checkout")
        os.makedirs(os.path.join(checkout, "scripts"))
        stand_in(os.path.join(checkout, "scripts"), "install-deps.sh")
        builder = os.path.join(scratch, "builder")
        os.makedirs(builder)
        stand_in(builder, "cmake",
                 'if [ "$1" = --build ]; then mkdir -p "$2/bin"; '
                 f'ln -sf "{BIN}/torchlint" "$2/bin/torchlint"; fi')
        built = Run(scratch, {"install": "source", "database": program, "upload": "false"},
                    builder + os.pathsep + system_path, action_path=checkout).go()
        check(calls(os.path.join(checkout, "scripts"), "install-deps.sh") != "",
              "install 'source' did not install the dependencies")
        check(f"-S {checkout} -B {built.temp}/torchlint-build" in calls(builder, "cmake"),
              f"cmake was called with: {calls(builder, 'cmake')}")
        check(built.output("exit-code") == "1", "the built torchlint was not on PATH for the analysis")

        wrong = Run(scratch, {"install": "pip", "database": program}, with_torchlint).go()
        check(wrong.status("Install torchlint") == 2 and "not 'pip'" in wrong.logs["Install torchlint"],
              "an unknown install did not fail clearly")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if FAILURES:
        print(f"action_test: {len(FAILURES)} checks failed", file=sys.stderr)
        return 1
    print("action_test: every shell step of action.yml behaved as specified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
