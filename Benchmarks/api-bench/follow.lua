-- wrk script: POST /user/follow/match with a random user token and a random live match.
-- Env: BENCH_TOKENS (file, one JWT per line), BENCH_PREFIX (match id prefix), BENCH_MATCHES (count).
local tokens = {}
local prefix = os.getenv("BENCH_PREFIX")
local matches = tonumber(os.getenv("BENCH_MATCHES"))
local counter = 0

function init(args)
  for line in io.lines(os.getenv("BENCH_TOKENS")) do tokens[#tokens + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  counter = counter + 1
  local token = tokens[math.random(#tokens)]
  local match = prefix .. "-m" .. math.random(matches)
  return wrk.format("POST", "/user/follow/match",
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
    '{"matchId":"' .. match .. '","deviceId":"d1"}')
end
