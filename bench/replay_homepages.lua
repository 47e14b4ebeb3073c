-- wrk script for bench/replay_bench.sh: GET every host's homepage in turn.
-- Arguments (after --): HOSTS_FILE [proxy]. Default: origin-form requests with a Host
-- header; "proxy": absolute-form requests, as a crawler sends them through a proxy.
local reqs = {}
local i = 0

function init(args)
  local proxy = args[2] == "proxy"
  for host in io.lines(args[1]) do
    if host ~= "" then
      if proxy then
        reqs[#reqs + 1] = wrk.format("GET", "http://" .. host .. "/", {["Host"] = host})
      else
        reqs[#reqs + 1] = wrk.format("GET", "/", {["Host"] = host})
      end
    end
  end
  -- Each thread starts somewhere else in the list.
  i = (wrk.thread and tonumber(tostring(wrk.thread):match("0x(%x+)"), 16) or 0) % #reqs
end

function request()
  i = i % #reqs + 1
  return reqs[i]
end
