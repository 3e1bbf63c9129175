-- contrib/slurm/lagom_submit.lua - lagom's job_submit/lua module.
--
-- For a job submitted with --lagom=auto --lagom-workload=NAME on N nodes,
-- look NAME and N up in the policy file `lagom policy` writes
-- (doc/policy-format.md) and, when the policy says the job loses enough
-- spread over the spine, ask Slurm for one leaf switch:
--     job_desc.req_switch = 1, job_desc.wait4switch = the policy's wait
-- (what `sbatch --switches=1@WAIT` asks), with a note in the admin comment.
-- A user who gave --switches keeps it.  No model code runs here: only a
-- table lookup.
--
-- It never rejects a job and never raises: a missing, unreadable, corrupt,
-- too large, untrusted (not owned by root or a trusted uid, or writable by
-- group or others, or in such a directory) policy leaves every job as it is,
-- with one slurm.log_info line per change of that state.  The policy is
-- re-checked at most every reload_s seconds (one stat), so a job costs a few
-- table lookups.
--
-- Use from the site's own job_submit.lua (next to slurm.conf):
--
--   local lagom = dofile("/usr/share/lagom/lagom_submit.lua")
--   lagom.setup{ policy = "/etc/slurm/lagom-policy", trusted_uids = { 0 } }
--   function slurm_job_submit(job_desc, part_list, submit_uid)
--           lagom.job_submit(job_desc, part_list, submit_uid)
--           return slurm.SUCCESS
--   end
--   function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
--           return slurm.SUCCESS
--   end
--
-- Slurm 22.05's job_submit/lua: job_desc.spank_job_env is a table indexed
-- from 0 with spank_job_env_size entries "NAME=value"; the SPANK options of
-- plugin lagom arrive as _SLURM_SPANK_OPTION_lagom_lagom=auto and
-- _SLURM_SPANK_OPTION_lagom_lagom_workload=NAME (verified on 22.05.8).

local M = {}

local FORMAT = "lagom-policy 1"
local MAX_ENV = 512	 -- spank_job_env entries looked at
local MAX_ENV_LEN = 4096 -- bytes of one entry looked at
local MAX_NAME = 127	 -- bytes of a workload name

local cfg = {
	policy = "/etc/slurm/lagom-policy",
	trusted_uids = { 0 },
	reload_s = 30,
	max_bytes = 1048576,
	max_entries = 20000,
	stat = "/usr/bin/stat",
	plugin = "lagom",
}

-- checked_at: os.time() of the last check; key: what the last check saw;
-- policy: the parsed policy or nil; status: the last state logged.
local state = { checked_at = nil, key = nil, policy = nil, status = nil }

local function log(msg)
	if slurm and slurm.log_info then
		slurm.log_info("%s", msg)
	end
end

-- One log line per change of the policy's state.
local function set_status(status)
	if status ~= state.status then
		state.status = status
		log(status)
	end
end

function M.setup(opts)
	opts = opts or {}
	for k, v in pairs(opts) do
		if cfg[k] == nil then
			error("lagom_submit.setup: unknown option " .. tostring(k))
		end
		if type(v) ~= type(cfg[k]) then
			error("lagom_submit.setup: " .. k .. " must be a " ..
			      type(cfg[k]))
		end
		cfg[k] = v
	end
	state = { checked_at = nil, key = nil, policy = nil, status = nil }
end

local function shell_quote(s)
	return "'" .. string.gsub(s, "'", "'\\''") .. "'"
end

local function dirname(path)
	local d = string.match(path, "^(.*)/[^/]*$")
	if d == nil then return "." end
	if d == "" then return "/" end
	return d
end

-- uid, mode (number), size, type, mtime of path and of its directory.
-- luaposix when installed; else one stat(1) for both.
local function stat_both(path)
	local ok, pstat = pcall(require, "posix.sys.stat")
	if ok and pstat and pstat.lstat then
		local out = {}
		for i, p in ipairs({ path, dirname(path) }) do
			local st = pstat.lstat(p)
			if not st then return nil end
			local t = "other"
			if pstat.S_ISREG(st.st_mode) ~= 0 then t = "regular file"
			elseif pstat.S_ISDIR(st.st_mode) ~= 0 then t = "directory" end
			out[i] = { uid = st.st_uid, mode = st.st_mode % 4096,
				   size = st.st_size, type = t,
				   mtime = st.st_mtime }
		end
		return out[1], out[2]
	end
	local cmd = cfg.stat .. " -c '%u %a %s %Y %F' -- " ..
		    shell_quote(path) .. " " .. shell_quote(dirname(path)) ..
		    " 2>/dev/null"
	local p = io.popen(cmd, "r")
	if not p then return nil end
	local text = p:read(4096) or ""
	p:close()
	local out = {}
	for line in string.gmatch(text, "[^\n]+") do
		local uid, mode, size, mtime, t = string.match(line,
			"^(%d+) ([0-7]+) (%d+) (%d+) (.+)$")
		if not uid then return nil end
		out[#out + 1] = { uid = tonumber(uid), mode = tonumber(mode, 8),
				  size = tonumber(size), mtime = tonumber(mtime),
				  type = t }
	end
	if #out ~= 2 then return nil end
	return out[1], out[2]
end

local function group_or_other_writable(mode)
	local other = mode % 8
	local group = math.floor(mode / 8) % 8
	return other % 4 >= 2 or group % 4 >= 2
end

local function trusted_owner(uid)
	for _, u in ipairs(cfg.trusted_uids) do
		if u == uid then return true end
	end
	return false
end

-- nil, or why the file may not be used.
local function trust_problem(st, dst)
	if not st then return "missing or cannot be examined" end
	if st.type ~= "regular file" and st.type ~= "regular empty file" then
		return "not a regular file"
	end
	if not dst or dst.type ~= "directory" then
		return "its directory cannot be examined"
	end
	if not trusted_owner(st.uid) then
		return "owned by uid " .. st.uid .. ", not a trusted uid"
	end
	if group_or_other_writable(st.mode) then
		return "writable by group or others"
	end
	if not trusted_owner(dst.uid) or group_or_other_writable(dst.mode) then
		return "its directory is not owned by a trusted uid or is " ..
		       "writable by group or others"
	end
	if st.size > cfg.max_bytes then
		return "larger than " .. cfg.max_bytes .. " bytes"
	end
	return nil
end

-- A number as `lagom policy` writes one (printf %f, %g: digits, a point,
-- an exponent), within [lo, hi]; nil for anything else.  tonumber() alone
-- would take "nan", "inf", "0x1p4" and " 5": a NaN loss made every job
-- wait 0 s for one switch.
local function number_in(s, lo, hi)
	if type(s) ~= "string" or #s > 32 or
	   not (string.match(s, "^%-?%d+%.?%d*$") or
		string.match(s, "^%-?%d+%.?%d*[eE][-+]?%d+$")) then
		return nil
	end
	local v = tonumber(s)
	-- v == v is false for NaN; the bounds keep out +-inf
	if not v or v ~= v or v < lo or v > hi then return nil end
	return v
end

-- Header lines: their kind and, for numbers, the range lagom writes
-- (policy/policy.h lagom_policy_params_check(), cli/policy_common.c).
local HEADER_KEYS = { generator = "s", gpu = "s", topology = "s",
		      gpus_per_node = { 1, 1024 }, leaf_nodes = { 1, 65536 },
		      run_s = { 1, 1e9 }, max_wait_s = { 0, 1e9 },
		      min_loss = { 0, 10 }, spine_taper = { 1, 64 } }
local MAX_LOSS = 1000	-- a spread job 1000 times slower: beyond any entry
local MAX_TIME_S = 1e9

local function parse_entry(p, line, n)
	local name, nodes, sw, wait, loss, leaf, spread, reason =
		string.match(line, "^entry (%S+) (%d+) (%d+) (%d+) (%S+) " ..
			     "(%S+) (%S+) (%S+)$")
	if not name then
		return "line " .. n .. ": malformed entry"
	end
	nodes, sw = number_in(nodes, 2, 65536), number_in(sw, 0, 1)
	wait = number_in(wait, 0, MAX_TIME_S)
	loss = number_in(loss, -1, MAX_LOSS)
	leaf = number_in(leaf, 0, MAX_TIME_S)
	spread = number_in(spread, 0, MAX_TIME_S)
	if not (nodes and sw and wait) or #name > MAX_NAME then
		return "line " .. n .. ": malformed entry"
	end
	if not loss or loss <= -1 then
		return "line " .. n .. ": loss is not a finite number " ..
		       "above -1 and at most " .. MAX_LOSS
	end
	if not (leaf and spread) or leaf <= 0 or spread <= 0 then
		return "line " .. n .. ": leaf_s and spread_s must be " ..
		       "finite numbers of seconds above 0"
	end
	p.count = p.count + 1
	if p.count > cfg.max_entries then
		return "more than " .. cfg.max_entries .. " entries"
	end
	local w = p.entries[name]
	if not w then
		w = { counts = {} }
		p.entries[name] = w
	end
	if w[nodes] then
		return "line " .. n .. ": " .. nodes .. " nodes given twice"
	end
	w[nodes] = { switches = sw, wait_s = wait, loss = loss,
		     leaf_s = leaf, spread_s = spread, reason = reason }
	w.counts[#w.counts + 1] = nodes
	return nil
end

local function parse_header(p, line, n)
	local key, value = string.match(line, "^(%S+) (%S+)$")
	local kind = key and HEADER_KEYS[key]
	if not kind or p[key] ~= nil then
		return "line " .. n .. ": unexpected line"
	end
	if type(kind) == "table" then
		value = number_in(value, kind[1], kind[2])
		if not value then
			return "line " .. n .. ": " .. key .. " is not a " ..
			       "finite number in " .. kind[1] .. ".." .. kind[2]
		end
	end
	p[key] = value
	return nil
end

-- The policy, or nil and why not.  Strict: any line it does not know
-- makes the whole file corrupt.
local function parse(text)
	local p = { entries = {}, count = 0 }
	local n, ended = 0, false
	for line in string.gmatch(text, "([^\n]*)\n") do
		n = n + 1
		local err
		if ended then
			return nil, "line " .. n .. ": text after end"
		elseif n == 1 then
			if line ~= FORMAT then
				return nil, "not a \"" .. FORMAT .. "\" file"
			end
		elseif string.sub(line, 1, 1) == "#" then
			err = nil
		elseif string.sub(line, 1, 6) == "entry " then
			err = parse_entry(p, line, n)
		elseif string.sub(line, 1, 4) == "end " then
			if tonumber(string.sub(line, 5)) ~= p.count then
				return nil, "line " .. n .. ": end count " ..
				       "does not match the entries"
			end
			ended = true
		else
			err = parse_header(p, line, n)
		end
		if err then return nil, err end
	end
	if not ended then return nil, "truncated (no end line)" end
	if p.topology ~= nil and p.topology ~= "tree" and
	   p.topology ~= "block" then
		return nil, "topology must be tree or block"
	end
	for key in pairs(HEADER_KEYS) do
		if p[key] == nil then return nil, "no " .. key .. " line" end
	end
	for _, w in pairs(p.entries) do
		table.sort(w.counts)
	end
	return p
end

local function read_policy(path)
	local f = io.open(path, "rb")
	if not f then return nil, "cannot be opened" end
	local text = f:read(cfg.max_bytes + 1)
	f:close()
	if not text then return nil, "empty" end
	if #text > cfg.max_bytes then
		return nil, "larger than " .. cfg.max_bytes .. " bytes"
	end
	return parse(text)
end

-- The current policy (nil: change nothing), re-checked at most every
-- reload_s seconds and re-read only when the file changed.
local function current_policy()
	local now = os.time()
	if state.checked_at and now - state.checked_at < cfg.reload_s then
		return state.policy
	end
	state.checked_at = now
	local path = cfg.policy
	local st, dst = stat_both(path)
	local problem = trust_problem(st, dst)
	if problem then
		state.policy, state.key = nil, nil
		set_status("lagom: policy " .. path .. " " .. problem ..
			   ": jobs are left unchanged")
		return nil
	end
	local key = table.concat({ st.uid, st.mode, st.size, st.mtime }, ":")
	if key == state.key then return state.policy end
	local p, err = read_policy(path)
	state.key = key
	state.policy = p
	if not p then
		set_status("lagom: policy " .. path .. " is corrupt (" .. err ..
			   "): jobs are left unchanged")
	else
		set_status("lagom: policy " .. path .. " loaded: " .. p.count ..
			   " entries")
	end
	return p
end

-- The job's --lagom and --lagom-workload values from spank_job_env.
local function lagom_options(job_desc)
	local env = job_desc.spank_job_env
	if type(env) ~= "table" then return nil end
	local size = tonumber(job_desc.spank_job_env_size) or 0
	if size > MAX_ENV then size = MAX_ENV end
	local prefix = "_SLURM_SPANK_OPTION_" .. cfg.plugin .. "_"
	local mode, workload
	for i = 0, size - 1 do
		local s = env[i]
		if type(s) == "string" and #s <= MAX_ENV_LEN and
		   string.sub(s, 1, #prefix) == prefix then
			local name, value = string.match(
				string.sub(s, #prefix + 1), "^([%w_]+)=(.*)$")
			if name == "lagom" then
				mode = value
			elseif name == "lagom_workload" then
				workload = value
			end
		end
	end
	return mode, workload
end

local function is_set(v)
	return v ~= nil and v ~= slurm.NO_VAL and v ~= slurm.NO_VAL16
end

-- The entry for nodes: the exact count, else the largest count below it.
local function lookup(p, workload, nodes)
	local w = p.entries[workload]
	if not w or nodes > (p.leaf_nodes or 0) then return nil end
	if w[nodes] then return w[nodes], nodes end
	local best
	for _, c in ipairs(w.counts) do
		if c <= nodes then best = c end
	end
	if best then return w[best], best end
	return nil
end

-- The wait: the policy's, or (a shorter time limit than the policy's run)
-- the loss over the job's own time limit.
local function wait_for(p, e, job_desc)
	local limit = job_desc.time_limit
	local wait = e.wait_s
	if is_set(limit) and limit ~= 0xffffffff and limit > 0 and
	   limit * 60 < p.run_s then
		wait = math.floor(math.min(e.loss * limit * 60, p.max_wait_s) +
				  1e-6)
		if wait < 1 then wait = 1 end
	end
	return wait
end

-- topology/block: one segment of the job's size keeps it inside one block.
-- job_submit/lua can write segment_size from Slurm 26.05 on (older ones
-- return nil for it); Slurm has no wait bound for segments.
local function block_segment(job_desc, workload, nodes, count, e)
	local seg = job_desc.segment_size
	if seg == nil then
		set_status("lagom: this Slurm's job_submit/lua cannot set " ..
			   "segment_size (26.05+): block jobs are left unchanged")
		return nil
	end
	if is_set(seg) and seg ~= 0 then return nil end -- the user's --segment
	job_desc.segment_size = nodes
	return string.format("lagom: --segment=%d for %s on %d nodes " ..
		"(policy entry %d nodes: one block %.1f ms, spread %.1f ms " ..
		"per iteration, +%.1f%%)", nodes, workload, nodes, count,
		e.leaf_s * 1e3, e.spread_s * 1e3, e.loss * 100)
end

local function decide(job_desc)
	local mode, workload = lagom_options(job_desc)
	if mode ~= "auto" or not workload or #workload == 0 or
	   #workload > MAX_NAME then
		return
	end
	if is_set(job_desc.req_switch) then return end -- the user's --switches
	local nodes = job_desc.min_nodes
	if not is_set(nodes) or nodes < 2 then return end
	if is_set(job_desc.max_nodes) and job_desc.max_nodes ~= nodes then
		return
	end
	local p = current_policy()
	if not p then return end
	local e, count = lookup(p, workload, nodes)
	if not e or e.switches ~= 1 then return end
	local note
	if p.topology == "block" then
		note = block_segment(job_desc, workload, nodes, count, e)
		if not note then return end
	else
		local wait = wait_for(p, e, job_desc)
		job_desc.req_switch = 1
		job_desc.wait4switch = wait
		note = string.format("lagom: --switches=1@%d for %s on %d " ..
			"nodes (policy entry %d nodes: one leaf %.1f ms, " ..
			"spread %.1f ms per iteration, +%.1f%%)", wait,
			workload, nodes, count, e.leaf_s * 1e3,
			e.spread_s * 1e3, e.loss * 100)
	end
	local old = job_desc.admin_comment
	if type(old) == "string" and #old > 0 then
		if #old + #note + 2 > 1000 then return end
		note = old .. "; " .. note
	end
	job_desc.admin_comment = note
end

-- Never fails, never rejects: returns slurm.SUCCESS in every case.
function M.job_submit(job_desc, part_list, submit_uid)
	local ok, err = pcall(decide, job_desc)
	if not ok then
		set_status("lagom: job_submit module error (job left " ..
			   "unchanged): " .. string.sub(tostring(err), 1, 200))
	end
	return slurm.SUCCESS
end

-- For tests: the parser on its own.
M._parse = parse

return M
