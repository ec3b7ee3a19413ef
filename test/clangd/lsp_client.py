"""A small LSP client for the torchalias-clangd tests: JSON-RPC over stdio,
plus the helpers the tests share (a scratch project, applying text edits)."""
import atexit
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time


# The flags of every test session. No background index: on a loaded machine
# it kept the server busy past the test's deadlines, and shutdown waits for
# it (BackgroundIndex::~BackgroundIndex). The open files are parsed anyway;
# the tests need nothing else.
SERVER_FLAGS = ["--background-index=false", "--log=error"]

# Deadlines, in seconds: generous, so that a test passes on a CI runner shared
# with other jobs, and bounded, so that a hung server fails it.
REPLY_TIMEOUT = 300
SHUTDOWN_TIMEOUT = 120


def server_argv(clangd):
    """The command line of a test session's server."""
    return [clangd, *SERVER_FLAGS]


def index_dir(root):
    """Where clangd would keep the background index of the project at root."""
    return os.path.join(root, ".cache", "clangd", "index")


class LspClient:
    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 1
        self.messages = queue.Queue()
        self.stderr = []
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode().partition(":")
                if key.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=REPLY_TIMEOUT):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def wait(self, predicate, timeout=REPLY_TIMEOUT):
        """The first message (skipping others) for which predicate holds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no matching message from the server")
            if message is None:
                raise RuntimeError("server exited: " + "".join(self.stderr[-20:]))
            if "method" in message and "id" in message:
                # Server requests (workDoneProgress/create, ...): answer them.
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if predicate(message):
                return message

    def diagnostics(self, uri, version=None, timeout=REPLY_TIMEOUT):
        def matches(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.wait(matches, timeout)["params"]["diagnostics"]

    def initialize(self, root):
        uri = "file://" + root
        self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri,
            "capabilities": {"textDocument": {
                "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
                "codeAction": {"codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
        self.notify("initialized", {})

    def close(self):
        """Shuts the server down; its exit status, once its whole log has been
        read (self.stderr is complete)."""
        try:
            self.request("shutdown", None, timeout=SHUTDOWN_TIMEOUT)
            self.notify("exit", None)
            self.proc.wait(timeout=SHUTDOWN_TIMEOUT)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        for reader in self.readers:
            reader.join(timeout=SHUTDOWN_TIMEOUT)
        return self.proc.returncode


def scratch_dir():
    """A fresh directory under the system's temporary directory, removed at
    exit. Not under the build tree: clangd looks for compile_commands.json in
    every parent directory, and the build directory has one."""
    path = tempfile.mkdtemp(prefix="torchalias-clangd-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def make_project(template, dest, flags):
    """Copies the project template to dest and writes its compilation database,
    one entry per .cpp file, compiled with flags."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(template, dest)
    entries = [{"directory": dest, "file": os.path.join(dest, name),
                "arguments": ["clang++", *flags, "-c", name]}
               for name in sorted(os.listdir(dest)) if name.endswith(".cpp")]
    with open(os.path.join(dest, "compile_commands.json"), "w") as out:
        json.dump(entries, out, indent=1)
    return dest


def offset(text, position):
    """The index in text of an LSP position (line, UTF-16 character; the test
    sources are ASCII)."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]


def apply_edits(text, edits):
    """text with the LSP TextEdits applied, last first so offsets stay valid."""
    for edit in sorted(edits, key=lambda e: offset(text, e["range"]["start"]), reverse=True):
        start = offset(text, edit["range"]["start"])
        end = offset(text, edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text
