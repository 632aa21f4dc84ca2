#!/usr/bin/env python3
"""Save-to-diagnostics time of `torchlint lsp`, as an editor sees it.

    bench/lsp_latency.py [--torchlint build/bin/torchlint] [--saves 5]
                         [--program test-inputs/pageable_copy.cpp]

Copies one test-inputs program, with its entry of the test-inputs
compilation database, into a fresh folder (so that no cache or precompiled
header of an earlier run is there), starts the server on it as an editor
would (initialize, didOpen), and measures:

  open:  didOpen to its first publishDiagnostics (a cold parse, while the
         server builds the precompiled libtorch prefix beside it);
  prefix: how long after the open the prefix was ready (polled on disk);
  save N: an edit written to disk (a comment line appended, so the result
         cache cannot answer) and didSave, to the publishDiagnostics that
         follows, once the prefix is ready.

Prints one Markdown row per measurement, for docs/performance.md.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import queue

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Client:
    """A minimal LSP client over a child's stdin and stdout."""

    def __init__(self, argv, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=cwd)
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            self.inbox.put(json.loads(out.read(length)))

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        ident = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": ident, "method": method,
                   "params": params})
        return self.wait(lambda m: m.get("id") == ident and "method" not in m)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, predicate, timeout=600):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the server")
            message = self.inbox.get(timeout=left)
            if message is None:
                raise EOFError("the server exited")
            if predicate(message):
                return message

    def diagnostics_for(self, uri, timeout=600):
        return self.wait(lambda m: m.get("method") ==
                         "textDocument/publishDiagnostics" and
                         m["params"]["uri"] == uri, timeout)["params"]


def uri_of(path):
    return "file://" + path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torchlint",
                        default=os.path.join(ROOT, "build/bin/torchlint"))
    parser.add_argument("--database",
                        default=os.path.join(
                            ROOT, "build/test-inputs/compile_commands.json"))
    parser.add_argument("--program",
                        default=os.path.join(ROOT,
                                             "test-inputs/pageable_copy.cpp"))
    parser.add_argument("--saves", type=int, default=5)
    args = parser.parse_args()

    program = os.path.abspath(args.program)
    entries = [e for e in json.load(open(args.database))
               if e["file"] == program]
    if not entries:
        sys.exit(f"{program} is not in {args.database}")
    work = tempfile.mkdtemp(prefix="torchlint-lsp-bench-")
    try:
        copy = os.path.join(work, os.path.basename(program))
        shutil.copy(program, copy)
        entry = dict(entries[0])
        entry["file"] = copy
        entry["directory"] = work
        if "command" in entry:
            entry["command"] = entry["command"].replace(program, copy)
        else:
            entry["arguments"] = [copy if a == program else a
                                  for a in entry["arguments"]]
        with open(os.path.join(work, "compile_commands.json"), "w") as f:
            json.dump([entry], f)

        client = Client([args.torchlint, "lsp"], cwd=work)
        client.request("initialize", {"processId": os.getpid(),
                                      "rootUri": uri_of(work),
                                      "capabilities": {}})
        client.notify("initialized", {})
        uri = uri_of(copy)
        text = open(copy).read()
        rows = []
        start = time.monotonic()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
        published = client.diagnostics_for(uri)
        rows.append(("open (cold, prefix building beside it)",
                     time.monotonic() - start, len(published["diagnostics"])))

        pch_dir = os.path.join(work, ".torchlint-cache", "pch")
        def prefix_ready():
            # The header is usable once its description (<key>.json) is
            # written beside it, after the .pch itself.
            for folder, _, names in os.walk(pch_dir):
                for name in names:
                    if name.endswith(".pch") and os.path.exists(
                            os.path.join(folder, name[:-4] + ".json")):
                        return True
            return False

        while not prefix_ready():
            if time.monotonic() - start > 600:
                sys.exit("the precompiled prefix was not built in 600 s")
            time.sleep(0.2)
        rows.append(("prefix ready, after the open", time.monotonic() - start,
                     None))

        for n in range(1, args.saves + 1):
            text += f"// edit {n}\n"
            with open(copy, "w") as f:
                f.write(text)
            start = time.monotonic()
            client.notify("textDocument/didSave",
                          {"textDocument": {"uri": uri}})
            published = client.diagnostics_for(uri)
            rows.append((f"save {n} (edited, prefix ready)",
                         time.monotonic() - start,
                         len(published["diagnostics"])))

        client.request("shutdown", None)
        client.notify("exit", None)
        client.proc.wait(timeout=60)

        print(f"program: {os.path.relpath(program, ROOT)}; "
              f"{os.cpu_count()} cores")
        print("| measurement | seconds | diagnostics |")
        print("| --- | --- | --- |")
        for name, seconds, count in rows:
            print(f"| {name} | {seconds:.2f} | "
                  f"{'' if count is None else count} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
