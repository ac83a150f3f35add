-- wrk script: GET /matches/live with a random user token. Env: BENCH_TOKENS.
local tokens = {}

function init(args)
  for line in io.lines(os.getenv("BENCH_TOKENS")) do tokens[#tokens + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  return wrk.format("GET", "/matches/live", { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] })
end
