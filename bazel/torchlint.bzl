"""torchlint in Bazel: one cacheable action per C++ source, a merged log, a test.

    bazel build //... --aspects=@torchlint_rules//:torchlint.bzl%torchlint_aspect \
        --output_groups=torchlint

analyzes every source of every cc_library, cc_binary and cc_test with the
flags its C++ toolchain compiles it with, each in an action of its own whose
inputs are the source, the target's transitive headers, the toolchain's
files, the rule options (`@torchlint//:config`) and the torchlint binary
(`@torchlint//:torchlint`), and
whose outputs are the unit's SARIF log and its exit status. The action never
fails on findings, so Bazel caches it, locally or remotely, like a compile.
Each action sees one unit (`--hermetic --no-summaries`): the findings that
need what another unit tells are not made (see docs/ci.md).

`torchlint_report` merges the logs of its targets and their dependencies into
one, and `torchlint_test` fails when that log has a finding at or above a
level.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

TorchlintInfo = provider(
    doc = "The torchlint logs of a target and of its dependencies.",
    fields = {"logs": "depset of SARIF files"},
)

_SOURCE_EXTENSIONS = ["cc", "cpp", "cxx", "c++", "C"]

def _compile_flags(ctx, target):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compilation = target[CcInfo].compilation_context
    user_flags = ctx.fragments.cpp.cxxopts + ctx.fragments.cpp.copts
    user_flags = user_flags + getattr(ctx.rule.attr, "copts", [])
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = user_flags,
        include_directories = compilation.includes,
        quote_include_directories = compilation.quote_includes,
        system_include_directories = compilation.system_includes,
        framework_include_directories = compilation.framework_includes,
        preprocessor_defines = depset(transitive = [
            compilation.defines,
            compilation.local_defines,
        ]),
    )
    flags = cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = "c++-compile",
        variables = variables,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = features,
        action_name = "c++-compile",
    )
    return cc_toolchain, compilation, [compiler] + flags

def _config_file(ctx):
    files = ctx.files._config
    if len(files) > 1:
        fail("@torchlint//:config holds more than one file: %s" % files)
    return files[0] if files else None

def _unit_action(ctx, source, cc_toolchain, compilation, command):
    prefix = "{}.torchlint/{}".format(ctx.label.name, source.short_path)
    database = ctx.actions.declare_file(prefix + ".compile_commands.json")
    log = ctx.actions.declare_file(prefix + ".sarif")
    status = ctx.actions.declare_file(prefix + ".status")

    # The database lies under bazel-out/<config>/bin/...; its "directory" is
    # the execution root the action runs in, named relatively so that the
    # file is the same in every sandbox.
    to_root = "/".join([".."] * len(database.dirname.split("/")))
    ctx.actions.write(database, json.encode([{
        "directory": to_root,
        "file": source.path,
        "arguments": command + ["-c", source.path],
    }]))
    torchlint = ctx.executable._torchlint
    config = _config_file(ctx)
    options = ["--config-file=" + config.path] if config else []
    ctx.actions.run_shell(
        command = ('"$1" --hermetic --no-summaries --quiet --format=sarif ' +
                   '--fail-on="$4" -o "$2" "$3" "${@:6}"; echo $? > "$5"'),
        arguments = [torchlint.path, log.path, database.path,
                     ctx.attr._fail_on, status.path] + options,
        inputs = depset(
            [source, database] + ([config] if config else []),
            transitive = [compilation.headers, cc_toolchain.all_files],
        ),
        tools = [ctx.attr._torchlint[DefaultInfo].files_to_run],
        outputs = [log, status],
        mnemonic = "Torchlint",
        progress_message = "torchlint %s" % source.short_path,
    )
    return log, status

def _torchlint_aspect_impl(target, ctx):
    transitive = [dep[TorchlintInfo].logs for dep in getattr(ctx.rule.attr, "deps", [])
                  if TorchlintInfo in dep]
    own = []
    if CcInfo in target and ctx.rule.kind in ["cc_library", "cc_binary", "cc_test"]:
        cc_toolchain, compilation, command = _compile_flags(ctx, target)
        for src in getattr(ctx.rule.attr, "srcs", []):
            for source in src.files.to_list():
                if source.extension in _SOURCE_EXTENSIONS:
                    log, status = _unit_action(ctx, source, cc_toolchain, compilation, command)
                    own += [log, status]
    logs = depset([f for f in own if f.extension == "sarif"], transitive = transitive)
    return [
        TorchlintInfo(logs = logs),
        OutputGroupInfo(torchlint = depset(own, transitive = transitive)),
    ]

torchlint_aspect = aspect(
    implementation = _torchlint_aspect_impl,
    attr_aspects = ["deps"],
    fragments = ["cpp"],
    attrs = {
        "_cc_toolchain": attr.label(default = Label("@bazel_tools//tools/cpp:current_cc_toolchain")),
        "_torchlint": attr.label(
            default = Label("@torchlint//:torchlint"),
            executable = True,
            cfg = "exec",
        ),
        # The rule options: a filegroup of at most one file in .clang-tidy's
        # format (CheckOptions); empty: the rules' defaults.
        "_config": attr.label(default = Label("@torchlint//:config"), allow_files = True),
        # What each unit's exit status says; the logs hold every finding.
        "_fail_on": attr.string(default = "warning"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

def _report_impl(ctx):
    logs = depset(transitive = [t[TorchlintInfo].logs for t in ctx.attr.targets])
    merged = ctx.actions.declare_file(ctx.label.name + ".sarif")
    args = ctx.actions.args()
    args.add("merge")
    args.add_all(logs)
    args.add("-o", merged)
    ctx.actions.run(
        executable = ctx.executable._torchlint,
        arguments = [args],
        inputs = logs,
        outputs = [merged],
        mnemonic = "TorchlintMerge",
        progress_message = "torchlint merge into %s" % merged.short_path,
    )
    return [DefaultInfo(files = depset([merged]))]

torchlint_report = rule(
    implementation = _report_impl,
    doc = "Merges the torchlint logs of targets and their dependencies.",
    attrs = {
        "targets": attr.label_list(aspects = [torchlint_aspect]),
        "_torchlint": attr.label(
            default = Label("@torchlint//:torchlint"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def _test_impl(ctx):
    log = ctx.file.report
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, is_executable = True, content = """#!/bin/sh
exec "{torchlint}" merge --fail-on={level} "{log}" -o /dev/null
""".format(
        torchlint = ctx.executable._torchlint.short_path,
        level = ctx.attr.fail_on,
        log = log.short_path,
    ))
    runfiles = ctx.runfiles(files = [log]).merge(
        ctx.attr._torchlint[DefaultInfo].default_runfiles,
    )
    return [DefaultInfo(executable = script, runfiles = runfiles)]

torchlint_test = rule(
    implementation = _test_impl,
    doc = "Fails when a merged log has a finding at or above fail_on.",
    test = True,
    attrs = {
        "report": attr.label(allow_single_file = [".sarif"], mandatory = True),
        "fail_on": attr.string(default = "warning", values = ["note", "warning", "error"]),
        "_torchlint": attr.label(
            default = Label("@torchlint//:torchlint"),
            executable = True,
            cfg = "target",
        ),
    },
)
