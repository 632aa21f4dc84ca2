"""Stands in for rules_proto offline: Bazel 4.2's own rule under its name."""

def proto_library(**kwargs):
    native.proto_library(**kwargs)
