-- tests/lua/test_lagom_submit.lua - contrib/slurm/lagom_submit.lua outside
-- slurmctld: a fake `slurm` table and job_desc tables shaped like 22.05's
-- job_submit/lua ones (spank_job_env indexed from 0).  Prints TAP.
--   lua5.1 test_lagom_submit.lua MODULE POLICY_FROM_LAGOM WORKDIR UID
local module_path, generated, dir, uid = arg[1], arg[2], arg[3], tonumber(arg[4])

local logs = {}
slurm = { SUCCESS = 0, ERROR = -1, NO_VAL = 4294967294, NO_VAL16 = 65534,
	  log_info = function(fmt, ...) logs[#logs + 1] = string.format(fmt, ...) end }

local lagom = dofile(module_path)
local n, failed = 0, 0
local function ok(cond, what)
	n = n + 1
	if cond then print("ok " .. n .. " - " .. what)
	else failed = failed + 1; print("not ok " .. n .. " - " .. what) end
end

local policy = dir .. "/policy"
local function write(path, text)
	local f = assert(io.open(path, "wb")); f:write(text); f:close()
end
local function sh(cmd) return os.execute(cmd) == 0 end

local good = table.concat({
	"lagom-policy 1",
	"# comment",
	"generator lagom-test",
	"gpu A100-SXM", "gpus_per_node 8", "leaf_nodes 8", "topology tree", "run_s 86400",
	"max_wait_s 300", "min_loss 0.0200", "spine_taper 4.000",
	"entry heavy:tp8 2 1 300 0.120000 0.2 0.224 pack",
	"entry heavy:tp8 4 1 300 0.150000 0.2 0.23 pack",
	"entry light:dp 2 0 0 0.000100 0.19 0.19 insensitive",
	"end 3", "" }, "\n")

local function job(opts)
	local env = {}
	local i = 0
	for _, e in ipairs(opts.env or {}) do env[i] = e; i = i + 1 end
	return { spank_job_env = i > 0 and env or nil, spank_job_env_size = i,
		 req_switch = opts.req_switch or slurm.NO_VAL,
		 wait4switch = slurm.NO_VAL,
		 min_nodes = opts.nodes or 2, max_nodes = opts.max_nodes or opts.nodes or 2,
		 time_limit = opts.time_limit or slurm.NO_VAL,
		 admin_comment = opts.admin_comment }
end
local AUTO = "_SLURM_SPANK_OPTION_lagom_lagom=auto"
local function W(name) return "_SLURM_SPANK_OPTION_lagom_lagom_workload=" .. name end
local function unchanged(j)
	return j.req_switch == slurm.NO_VAL and j.wait4switch == slurm.NO_VAL and
	       j.admin_comment == nil
end
local function submit(j) return lagom.job_submit(j, {}, 1000) end

write(policy, good)
sh("chmod 0644 '" .. policy .. "'")
lagom.setup{ policy = policy, trusted_uids = { uid }, reload_s = 0 }

-- the decision
local j = job{ env = { AUTO, W("heavy:tp8") } }
ok(submit(j) == slurm.SUCCESS, "job_submit returns SUCCESS")
ok(j.req_switch == 1 and j.wait4switch == 300, "communication-heavy job gets --switches=1@300")
ok(j.admin_comment and j.admin_comment:find("lagom: --switches=1@300 for heavy:tp8 on 2 nodes", 1, true),
   "... and an admin comment naming the decision")
j = job{ env = { "OTHER=1", W("heavy:tp8"), AUTO }, nodes = 3 }
submit(j)
ok(j.req_switch == 1 and j.admin_comment:find("policy entry 2 nodes", 1, true),
   "3 nodes use the entry of 2 (largest count below)")
j = job{ env = { AUTO, W("heavy:tp8") }, nodes = 9 }
submit(j)
ok(unchanged(j), "more nodes than a leaf holds: unchanged")
j = job{ env = { AUTO, W("heavy:tp8") }, time_limit = 30 }
submit(j)
ok(j.req_switch == 1 and j.wait4switch == 216, "a 30-minute limit waits 0.12 x 1800 s = 216 s")
j = job{ env = { AUTO, W("heavy:tp8") }, admin_comment = "site note" }
submit(j)
ok(j.admin_comment:find("^site note; lagom: "), "an existing admin comment is kept")
j = job{ env = { W("heavy:tp8") } }
submit(j)
ok(unchanged(j), "no --lagom: unchanged")
j = job{ env = { "_SLURM_SPANK_OPTION_lagom_lagom=off", W("heavy:tp8") } }
submit(j)
ok(unchanged(j), "--lagom=off: unchanged")
j = job{ env = { AUTO, W("heavy:tp8") }, req_switch = 2 }
submit(j)
ok(j.req_switch == 2 and j.wait4switch == slurm.NO_VAL and j.admin_comment == nil,
   "the user's --switches=2 is kept")
j = job{ env = { AUTO, W("light:dp") } }
submit(j)
ok(unchanged(j), "an insensitive workload: unchanged")
j = job{ env = { AUTO, W("unknown") } }
submit(j)
ok(unchanged(j), "a workload not in the policy: unchanged")
j = job{ env = { AUTO, W("heavy:tp8") }, nodes = 2, max_nodes = 4 }
submit(j)
ok(unchanged(j), "a node range (-N2-4): unchanged")
j = job{ env = { AUTO } }
submit(j)
ok(unchanged(j), "no workload named: unchanged")
ok(#logs == 1 and logs[1]:find("loaded: 3 entries", 1, true), "one log line: the policy loaded")

-- hostile job fields
local big = {}
for i = 1, 5000 do big[i] = "X" .. i .. "=" .. string.rep("y", 100) end
big[#big + 1] = AUTO
big[#big + 1] = W("heavy:tp8")
j = job{ env = big }
submit(j)
ok(unchanged(j), "the options beyond the first 512 spank_job_env entries are not looked at")
j = job{ env = { AUTO, W(string.rep("%s%n", 500)) } }
ok(submit(j) == slurm.SUCCESS and unchanged(j), "a 1000-byte workload of format characters: unchanged")
local trap = setmetatable({}, { __index = function(t, k) error("boom " .. k) end })
logs = {}
ok(submit(trap) == slurm.SUCCESS, "a job_desc that raises: still SUCCESS")
ok(#logs == 1 and logs[1]:find("module error", 1, true), "... with one log line")

-- the policy's own failures: every job unchanged, one log line per state
local function bad_policy(what, prepare)
	logs = {}
	prepare()
	lagom.setup{ policy = policy, trusted_uids = { uid }, reload_s = 0 }
	local all = true
	for _ = 1, 5 do
		local jj = job{ env = { AUTO, W("heavy:tp8") } }
		all = all and submit(jj) == slurm.SUCCESS and unchanged(jj)
	end
	ok(all, what .. ": five jobs accepted unchanged")
	ok(#logs == 1, what .. ": one log line (" .. (logs[1] or "none") .. ")")
	write(policy, good)
	sh("chmod 0644 '" .. policy .. "'")
end
bad_policy("missing policy", function() os.remove(policy) end)
bad_policy("truncated policy", function() write(policy, good:sub(1, 200)) end)
bad_policy("wrong version", function() write(policy, (good:gsub("lagom%-policy 1", "lagom-policy 2"))) end)
bad_policy("garbage line", function() write(policy, (good:gsub("# comment", "rm -rf /"))) end)
bad_policy("bad entry", function() write(policy, (good:gsub("2 1 300 0.12", "2 1 x 0.12"))) end)
bad_policy("empty policy", function() write(policy, "") end)
bad_policy("huge policy", function()
	write(policy, good:sub(1, -7) .. string.rep("# padding\n", 120000) .. "end 3\n")
end)
bad_policy("world-writable policy", function() sh("chmod 0666 '" .. policy .. "'") end)
bad_policy("group-writable policy", function() sh("chmod 0664 '" .. policy .. "'") end)
bad_policy("symlinked policy", function()
	os.remove(policy)
	write(dir .. "/real", good)
	sh("chmod 0644 '" .. dir .. "/real'")
	sh("ln -s '" .. dir .. "/real' '" .. policy .. "'")
end)
os.remove(policy)
write(policy, good)
sh("chmod 0644 '" .. policy .. "'")
if uid == 0 then
	bad_policy("policy owned by nobody", function()
		sh("chown 65534 '" .. policy .. "'")
	end)
	sh("chown 0 '" .. policy .. "'")
else
	print("ok " .. (n + 1) .. " # SKIP not root: cannot chown the policy"); n = n + 1
end
bad_policy("policy in a world-writable directory", function()
	sh("chmod 0777 '" .. dir .. "'")
end)
sh("chmod 0755 '" .. dir .. "'")
os.remove(policy)
write(policy, good)
sh("chmod 0644 '" .. policy .. "'")

-- reloads: a changed policy is picked up; a state logs once
logs = {}
lagom.setup{ policy = policy, trusted_uids = { uid }, reload_s = 0 }
j = job{ env = { AUTO, W("heavy:tp8") } }; submit(j)
write(policy, (good:gsub("heavy:tp8 2 1 300", "heavy:tp8 2 0 0")))
sh("touch -d '+5 seconds' '" .. policy .. "'")
j = job{ env = { AUTO, W("heavy:tp8") } }; submit(j)
ok(unchanged(j), "a rewritten policy is read again")
write(policy, good)
sh("touch -d '+10 seconds' '" .. policy .. "'")
lagom.setup{ policy = policy, trusted_uids = { uid }, reload_s = 3600 }
j = job{ env = { AUTO, W("heavy:tp8") } }; submit(j)
os.remove(policy)
j = job{ env = { AUTO, W("heavy:tp8") } }; submit(j)
ok(j.req_switch == 1, "reload_s=3600: the loaded policy serves until the next check")

-- topology/block: --segment through segment_size (26.05+ job_submit/lua)
write(policy, (good:gsub("topology tree", "topology block")))
sh("touch -d '+20 seconds' '" .. policy .. "'")
logs = {}
lagom.setup{ policy = policy, trusted_uids = { uid }, reload_s = 0 }
j = job{ env = { AUTO, W("heavy:tp8") } }
j.segment_size = slurm.NO_VAL16
submit(j)
ok(j.segment_size == 2 and j.req_switch == slurm.NO_VAL and
   j.admin_comment:find("lagom: --segment=2 for heavy:tp8", 1, true),
   "block policy, 26.05-style job_desc: segment_size = the job's nodes")
j = job{ env = { AUTO, W("heavy:tp8") } }
j.segment_size = 4
submit(j)
ok(j.segment_size == 4 and j.admin_comment == nil, "block policy: the user's --segment=4 is kept")
j = job{ env = { AUTO, W("heavy:tp8") } }
submit(j); submit(j)
ok(unchanged(j) and j.segment_size == nil, "block policy, pre-26.05 job_desc (no segment_size): unchanged")
ok(#logs == 2 and logs[2]:find("cannot set segment_size", 1, true), "... one log line saying why")
write(policy, (good:gsub("topology tree", "topology torus")))
sh("touch -d '+30 seconds' '" .. policy .. "'")
j = job{ env = { AUTO, W("heavy:tp8") } }; submit(j)
ok(unchanged(j), "an unknown topology kind: corrupt, unchanged")
write(policy, good)
sh("touch -d '+40 seconds' '" .. policy .. "'")

-- numbers that tonumber() takes but lagom never writes (issue 25: a NaN
-- loss gave every job --switches=1@0): the file is corrupt, said once
local stamp = 40
local function with(from, to)
	stamp = stamp + 10 -- the good policy first: one line per change
	sh("touch -d '+" .. stamp .. " seconds' '" .. policy .. "'")
	submit(job{ env = { AUTO, W("heavy:tp8") } })
	stamp = stamp + 10
	write(policy, (good:gsub(from, to, 1)))
	sh("touch -d '+" .. stamp .. " seconds' '" .. policy .. "'")
	logs = {}
	local jj = job{ env = { AUTO, W("heavy:tp8") }, time_limit = 30 }
	submit(jj)
	return jj
end
for _, bad in ipairs({ "nan", "-nan", "inf", "-inf", "1e999", "0x10",
		       "1e5", "-1.5", "+0.12" }) do
	write(policy, good)
	j = with("0%.120000", bad)
	ok(unchanged(j) and #logs == 1 and
	   logs[1]:find("lagom: policy .* is corrupt %(line 12: loss is not a finite number") ~= nil,
	   "loss " .. bad .. ": the policy is refused with one lagom: line, the job unchanged")
end
write(policy, good)
j = with("0%.224 pack", "nan pack")
ok(unchanged(j) and logs[1]:find("line 12: leaf_s and spread_s must be finite", 1, true),
   "spread_s nan: refused, the job unchanged")
write(policy, good)
j = with("min_loss 0%.0200", "min_loss nan")
ok(unchanged(j) and logs[1]:find("min_loss is not a finite number", 1, true),
   "min_loss nan: refused")
write(policy, good)
j = with("run_s 86400", "run_s inf")
ok(unchanged(j) and logs[1]:find("run_s is not a finite number", 1, true),
   "run_s inf: refused")
write(policy, good)
j = with("max_wait_s 300", "max_wait_s nan")
ok(unchanged(j), "max_wait_s nan: refused")
write(policy, good)
j = with("0%.120000", "0.12e0")
ok(j.req_switch == 1 and j.wait4switch == 216, "loss 0.12e0 (a %g form): still read")
write(policy, good)
stamp = stamp + 10
sh("touch -d '+" .. stamp .. " seconds' '" .. policy .. "'")

-- a policy written by `lagom policy` parses
local f = assert(io.open(generated, "rb"))
local text = f:read("*a"); f:close()
local p, err = lagom._parse(text)
ok(p ~= nil, "the file `lagom policy` wrote parses (" .. tostring(err) .. ")")
ok(p and p.count > 0 and p.leaf_nodes >= 2, "... with entries and leaf_nodes")
for k = 1, #text - 1, math.max(1, math.floor(#text / 40)) do
	if lagom._parse(text:sub(1, k)) then
		ok(false, "a policy cut at byte " .. k .. " is refused"); break
	end
end
ok(true, "every cut of the generated policy is refused")

print("1.." .. n)
os.exit(failed == 0 and 0 or 1)
