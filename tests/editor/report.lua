-- What an editor test saw, written to REPORT for the test's log:
--   local reporting = dofile(os.getenv('REPORTING'))
--   local ok, problem = pcall(function() ... reporting.fail(...) ... end)
--   reporting.finish(ok, problem)
local report = io.open(os.getenv('REPORT'), 'w')
local M = {}

function M.say(text)
  report:write(text .. '\n')
  report:flush()
end

function M.fail(text)
  M.say('FAILED: ' .. text)
  report:close()
  vim.cmd('cquit 1')
end

function M.finish(ok, problem)
  if not ok then
    M.fail(tostring(problem))
  end
  M.say('done')
  report:close()
  vim.cmd('qall!')
end

return M
