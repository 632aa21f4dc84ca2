-- Neovim opens one unit of a program the CLI has just analyzed, and the
-- diagnostics `torchlint lsp` publishes for it must be the CLI's findings in
-- that file (rule and line), among them one of rule NEEDS_OTHERS, which only
-- what another unit tells makes. Run by NeovimProgramTest.cmake:
--   nvim --headless -u NONE -i NONE -c 'luafile neovim_program.lua'
-- with TORCHLINT, PROGRAM (the unit), CLI_JSON (the CLI's --format=json
-- output), NEEDS_OTHERS, and REPORTING (report.lua, which writes what was
-- seen to REPORT for the test's log).

local program = os.getenv('PROGRAM')
local reporting = dofile(os.getenv('REPORTING'))
local say, fail = reporting.say, reporting.fail

local ok, problem = pcall(function()
  local cli = vim.fn.json_decode(vim.fn.readfile(os.getenv('CLI_JSON')))
  local expected = {}
  for _, f in ipairs(cli.findings) do
    if f.file == program then
      table.insert(expected, f.rule .. ':' .. f.line)
    end
  end
  table.sort(expected)
  say('the CLI: ' .. table.concat(expected, ' '))
  local needed = os.getenv('NEEDS_OTHERS')
  local found = false
  for _, seen in ipairs(expected) do
    found = found or seen:find(needed .. ':', 1, true) == 1
  end
  if not found then
    return fail('the CLI made no ' .. needed .. ' finding in ' .. program)
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(program))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  local published = nil
  local logged = {}
  local client_id = vim.lsp.start_client({
    name = 'torchlint',
    cmd = { os.getenv('TORCHLINT'), 'lsp' },
    root_dir = vim.fn.fnamemodify(program, ':h'),
    handlers = {
      ['textDocument/publishDiagnostics'] = function(_, result)
        if result.uri == uri then
          published = result.diagnostics
        end
      end,
      ['window/logMessage'] = function(_, result)
        table.insert(logged, result.message)
      end,
    },
  })
  if not client_id then
    return fail('vim.lsp.start_client could not start the server')
  end
  vim.lsp.buf_attach_client(bufnr, client_id)
  if not vim.wait(180000, function() return published ~= nil end, 50) then
    return fail('no diagnostics after the open')
  end
  for _, message in ipairs(logged) do
    say('log: ' .. message)
  end
  local seen = {}
  for _, d in ipairs(published) do
    table.insert(seen, d.code .. ':' .. (d.range.start.line + 1))
  end
  table.sort(seen)
  say('the server: ' .. table.concat(seen, ' '))
  if not vim.deep_equal(seen, expected) then
    return fail('the server published other diagnostics than the CLI found')
  end
  vim.lsp.get_client_by_id(client_id).stop()
  vim.wait(10000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 50)
end)

reporting.finish(ok, problem)
