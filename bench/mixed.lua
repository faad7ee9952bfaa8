-- wrk script for the memory run (BENCH_REQUESTS): cycles through the four
-- product paths of the benchmark, (b) (c) (d) (e), one after the other.
-- FORM_PATH and API_KEY come from the environment.
local form = os.getenv("FORM_PATH")
local key = os.getenv("API_KEY")
local body = '{"name":"Ada Lovelace","email":"ada@example.com","size":"m","stars":5,"consent":true}'
local n = 0
request = function()
  n = n + 1
  local k = n % 4
  if k == 0 then
    return wrk.format("GET", form, {["Accept"] = "application/json"})
  elseif k == 1 then
    return wrk.format("GET", form, {["Accept"] = "text/html"})
  elseif k == 2 then
    return wrk.format("POST", form, {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", "/v1/forms/" .. string.match(form, "[^/]+$"),
                    {["Authorization"] = "Bearer " .. key})
end
