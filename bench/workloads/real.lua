-- Workload 3 input: a fixed script for Debian's lua5.4 interpreter (built from
-- source): recursion, string building, table sort, string library.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 20000 do t[i] = string.format("%07d", (i * 7919) % 100003) .. "k" end
table.sort(t)
local words = {}
for i = 1, #t, 7 do words[#words + 1] = t[i]:upper():sub(2, 6) end
local s = table.concat(words, ",")
local n = 0
for w in s:gmatch("[^,]+") do n = n + #w end
print(fib(20), #t, n)
