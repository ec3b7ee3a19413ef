-- Run by neovim_test.py: neovim's own LSP client (0.7) attaches
-- torchalias-clangd to the open buffer, reads back the libtorch diagnostic,
-- applies the quickfix code action and waits for the diagnostic to go.
-- Every step is written to $TORCHALIAS_NVIM_LOG for the driver to check.
local log = io.open(vim.env.TORCHALIAS_NVIM_LOG, "w")
local function say(event, value)
  log:write(vim.fn.json_encode({ event = event, value = value }), "\n")
  log:flush()
end

local function libtorch_diagnostics()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if type(code) == "string" and code:find("^libtorch%-") then
      table.insert(found, { lnum = d.lnum, col = d.col, message = d.message, code = code })
    end
  end
  return found
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "torchalias-clangd",
    -- The flags of every test session (lsp_client.SERVER_FLAGS).
    cmd = vim.list_extend({ vim.env.TORCHALIAS_CLANGD },
                          vim.fn.json_decode(vim.env.TORCHALIAS_CLANGD_FLAGS)),
    root_dir = vim.fn.getcwd(),
  })
  vim.lsp.buf_attach_client(0, client_id)

  vim.wait(300000, function() return #libtorch_diagnostics() > 0 end, 100)
  say("diagnostics", libtorch_diagnostics())

  local diagnostic = libtorch_diagnostics()[1]
  if diagnostic then
    local params = vim.lsp.util.make_range_params()
    params.range = {
      start = { line = diagnostic.lnum, character = diagnostic.col },
      ["end"] = { line = diagnostic.lnum, character = diagnostic.col },
    }
    params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(0, diagnostic.lnum) }
    local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 300000) or {}
    local titles = {}
    for _, response in pairs(responses) do
      for _, action in ipairs(response.result or {}) do
        table.insert(titles, action.title)
        if action.edit and #titles == 1 then
          vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
        end
      end
    end
    say("code actions", titles)
    vim.wait(300000, function() return #libtorch_diagnostics() == 0 end, 100)
    say("after fix", { diagnostics = libtorch_diagnostics(),
                       lines = vim.api.nvim_buf_get_lines(0, 0, -1, false) })
  end
end)
if not ok then say("error", tostring(err)) end
log:close()
vim.cmd("qall!")
