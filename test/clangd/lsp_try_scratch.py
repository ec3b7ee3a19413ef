import sys, json
sys.path.insert(0, "/work/main/test/clangd")
from lsp_client import LspClient
root = sys.argv[1]
c = LspClient(["/work/main/build/bin/torchalias-clangd", "--log=error"], root)
c.initialize(root)
uri = "file://" + root + "/" + sys.argv[2]
c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1, "text": open(root + "/" + sys.argv[2]).read()}})
print(json.dumps(c.diagnostics(uri), indent=1))
c.close()
