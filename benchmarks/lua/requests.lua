-- Replays a requests file (benchmarks/common.py write_requests): one request per line,
-- `METHOD<TAB>PATH<TAB>BODY<TAB>Header: value<TAB>...`, spread round-robin over the
-- threads, each thread starting at its own offset so that many devices are hit.
-- Usage: wrk -s requests.lua http://127.0.0.1:PORT -- FILE
-- done() prints one `WRK_JSON {...}` line with exact percentiles (microseconds).

local threads = {}
local counter = 1

function setup(thread)
   thread:set("thread_id", #threads)
   table.insert(threads, thread)
end

local function split(line)
   local parts = {}
   for part in (line .. "\t"):gmatch("([^\t]*)\t") do
      table.insert(parts, part)
   end
   return parts
end

local prepared = {}

function init(args)
   local file = args[1]
   if file == nil then
      error("requests.lua needs a requests file: wrk ... -- FILE")
   end
   for line in io.lines(file) do
      if line ~= "" then
         local parts = split(line)
         local headers = {}
         for i = 4, #parts do
            local name, value = parts[i]:match("^([^:]+):%s*(.*)$")
            if name then
               headers[name] = value
            end
         end
         local body = parts[3]
         if body == "" then
            body = nil
         end
         table.insert(prepared, wrk.format(parts[1], parts[2], headers, body))
      end
   end
   if #prepared == 0 then
      error("requests file is empty: " .. file)
   end
   counter = ((thread_id or 0) * 7919) % #prepared + 1
end

function request()
   local r = prepared[counter]
   counter = counter + 1
   if counter > #prepared then
      counter = 1
   end
   return r
end

function done(summary, latency, requests)
   io.write(string.format(
      'WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,' ..
      '"status":%d,"timeout":%d,"p50_us":%f,"p90_us":%f,"p99_us":%f,"max_us":%f,"mean_us":%f}\n',
      summary.requests, summary.duration, summary.errors.connect, summary.errors.read,
      summary.errors.write, summary.errors.status, summary.errors.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max, latency.mean))
end
