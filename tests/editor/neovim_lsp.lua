-- Neovim drives `torchlint lsp` as an editor would: it opens a program with
-- one fix-it, saves it, reads the diagnostics the server published, asks for
-- the code action at the diagnostic, applies its edit, and saves again.
-- Run by NeovimTest.cmake:
--   nvim --headless -u NONE -i NONE -c 'luafile neovim_lsp.lua'
-- with TORCHLINT, ORIGINAL (a test-inputs program), GOLDEN (its fixed
-- version), PROGRAM (where its copy is edited, named by the compilation
-- database there), EXPECTED (where the expected text is written) and
-- REPORTING (report.lua, which writes what was seen to REPORT for the test's
-- log).
--
-- A comment with characters outside ASCII (one outside the Basic
-- Multilingual Plane among them) is put at the start of the line the fix
-- changes, in the copy and in the expected text alike: Neovim counts UTF-16
-- code units, so a server that sent byte columns would misplace the fix.

local torchlint = os.getenv('TORCHLINT')
local program = os.getenv('PROGRAM')
local reporting = dofile(os.getenv('REPORTING'))
local say, fail = reporting.say, reporting.fail
local marker = '/* ünïcödé 😀 */ '

local ok, problem = pcall(function()
  local original = vim.fn.readfile(os.getenv('ORIGINAL'), 'b')
  local expected = vim.fn.readfile(os.getenv('GOLDEN'), 'b')
  local changed = nil
  for i = 1, math.min(#original, #expected) do
    if original[i] ~= expected[i] then
      changed = i
      break
    end
  end
  if not changed then
    return fail('the program and its golden do not differ')
  end
  original[changed] = marker .. original[changed]
  expected[changed] = marker .. expected[changed]
  vim.fn.writefile(original, program, 'b')
  vim.fn.writefile(expected, os.getenv('EXPECTED'), 'b')

  vim.cmd('edit ' .. vim.fn.fnameescape(program))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)

  local published = 0
  local client_id = vim.lsp.start_client({
    name = 'torchlint',
    cmd = { torchlint, 'lsp' },
    root_dir = vim.fn.fnamemodify(program, ':h'),
    handlers = {
      ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
        vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
        if result.uri == uri then
          published = published + 1
        end
      end,
    },
  })
  if not client_id then
    return fail('vim.lsp.start_client could not start ' .. torchlint)
  end
  vim.lsp.buf_attach_client(bufnr, client_id)

  -- The open is analyzed; then the save.
  if not vim.wait(180000, function() return published >= 1 end, 50) then
    return fail('no diagnostics after the open')
  end
  vim.cmd('silent write')
  if not vim.wait(180000, function() return published >= 2 end, 50) then
    return fail('no diagnostics after the save')
  end

  local diagnostics = vim.diagnostic.get(bufnr)
  say('diagnostics: ' .. #diagnostics)
  for _, d in ipairs(diagnostics) do
    say(string.format('  %d:%d-%d:%d severity=%d source=%s code=%s %s',
      d.lnum + 1, d.col, d.end_lnum + 1, d.end_col, d.severity,
      tostring(d.source), tostring(d.user_data and d.user_data.lsp and
        d.user_data.lsp.code), d.message))
  end
  if #diagnostics ~= 1 then
    return fail('expected exactly one diagnostic')
  end
  local d = diagnostics[1]

  local client = vim.lsp.get_client_by_id(client_id)
  local params = {
    textDocument = { uri = uri },
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum, character = d.end_col },
    },
    context = { diagnostics = { d.user_data.lsp } },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction',
    params, 60000)
  local response = responses and responses[client_id]
  if not response or response.err then
    return fail('codeAction failed: ' .. vim.inspect(response))
  end
  local actions = response.result or {}
  say('code actions: ' .. #actions)
  for _, action in ipairs(actions) do
    say('  ' .. action.title .. ' (' .. tostring(action.kind) .. ')')
  end
  if #actions ~= 1 then
    return fail('expected exactly one code action')
  end
  vim.lsp.util.apply_workspace_edit(actions[1].edit, client.offset_encoding)
  say('offset encoding: ' .. client.offset_encoding)
  vim.cmd('silent write')
  local fixed = vim.fn.readfile(program, 'b')
  if not vim.deep_equal(fixed, expected) then
    return fail('after the code action, ' .. program .. ' differs from ' ..
      os.getenv('EXPECTED') .. ' (the golden, marked)')
  end
  -- Without the comment, the file is the golden itself.
  fixed[changed] = fixed[changed]:sub(#marker + 1)
  if not vim.deep_equal(fixed, vim.fn.readfile(os.getenv('GOLDEN'), 'b')) then
    return fail('without the comment, ' .. program .. ' differs from ' ..
      os.getenv('GOLDEN'))
  end
  say('the fixed file equals the golden')

  client.stop()
  vim.wait(10000, function() return client.is_stopped() end, 50)
end)

reporting.finish(ok, problem)
