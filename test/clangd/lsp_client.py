"""A small LSP client for the torchalias-clangd tests: JSON-RPC over stdio."""
import json
import os
import subprocess
import threading
import time
import queue


class LspClient:
    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 1
        self.messages = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

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

    def request(self, method, params, timeout=120):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def wait(self, predicate, timeout=120):
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

    def diagnostics(self, uri, version=None, timeout=120):
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
        try:
            self.request("shutdown", None, timeout=20)
            self.notify("exit", None)
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
        return self.proc.returncode
