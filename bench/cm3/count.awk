# count.awk - counts executed instructions in a QEMU execution log of the bench image.
#
# The log comes from `-singlestep -d exec,nochain -dfilter <measured range>`: one
# "Trace" line per executed instruction in that range (one instruction per
# translation block, chaining off, so every execution of a block is logged), with the
# guest PC as the second field between brackets:
#
#   Trace 0: 0x7f... [00800400/00001eac/00000110/ff020201] memcpy
#
# A block that QEMU entered but left before its instruction ran (an exit request,
# e.g. a timer; logged as "Stopped execution of TB chain before ...") is not counted.
#
# Nor is a load or store of a device register counted twice. Under -icount, QEMU
# may only touch a device in the last instruction of a block translated for it
# (CF_LAST_IO), so that virtual time is exact at the access. Meeting one elsewhere,
# it abandons the block at that instruction, before it takes effect, translates it
# again and runs it again (cpu_io_recompile). The exec log shows both runs, with the
# rewind between them:
#
#   Trace 0: 0x7f...740 [00800400/00000d38/00000110/ff020201] systick_cycles
#   cpu_io_recompile: rewound execution of TB to 00000d38
#   Trace 0: 0x7f...8c0 [00800400/00000d38/00000110/ff038201] systick_cycles
#
# The first run did not complete: like a stopped block, it is dropped. With one
# instruction per block, the rewound address is always that of the line before
# (anything else fails the count).
#
# Variables (awk -v): begin, end = addresses of bench_begin and bench_end, as 8 hex
# digits; cpsid, cpsie = space-separated addresses of the library's `cpsid i` and
# `cpsie i` instructions; clock = addresses of the clock functions' instructions
# (each may be empty).
#
# Prints one line per interval between a bench_begin and the next bench_end:
#   interval <n> insns <count> clock <in clock functions> cs <critical sections> cs_max <longest> rewound <r>
# and, with -v owners=FILE (lines "<address, 8 hex digits> <function>": the function
# each instruction belongs to), then one line per function that ran in an interval:
#   function <name> insns <count over every interval>
# where count excludes the two markers, a critical section runs from its cpsid to its
# cpsie, both included, and r is how many device accesses QEMU ran twice (counted
# once).

BEGIN {
    if (owners != "") {
        while ((getline line < owners) > 0) {
            split(line, o, " ")
            owner[o[1]] = o[2]
        }
        close(owners)
    }
    n_cpsid = split(cpsid, a, " ")
    for (i = 1; i <= n_cpsid; i++) is_cpsid[a[i]] = 1
    n_cpsie = split(cpsie, b, " ")
    for (i = 1; i <= n_cpsie; i++) is_cpsie[b[i]] = 1
    n_clock = split(clock, c, " ")
    for (i = 1; i <= n_clock; i++) is_clock[c[i]] = 1
    pending = ""
    intervals = 0
}

function pc_of(line,    f) {
    split(line, f, /[][\/]/)
    return f[3]
}

# Addresses are compared as strings: awk would compare two that look like numbers
# ("000050e0" reads as 50, "00000050" as 50) as numbers.
function take(pc) {
    if (pc "" == begin "") {
        inside = 1; insns = 0; clk = 0; cs = 0; cs_max = 0; in_cs = 0; rewound = 0
        return
    }
    if (!inside) return
    if (pc "" == end "") {
        intervals++
        if (in_cs) { print "count.awk: interval " intervals " ends inside a critical section" > "/dev/stderr"; bad = 1 }
        printf "interval %d insns %d clock %d cs %d cs_max %d rewound %d\n", intervals, insns, clk, cs, cs_max, rewound
        inside = 0
        return
    }
    insns++
    if (owners != "") by_fn[(pc in owner) ? owner[pc] : "?"]++
    if (pc in is_clock) clk++
    if (pc in is_cpsid) { in_cs = 1; cs_len = 0 }
    if (in_cs) cs_len++
    if (pc in is_cpsie) {
        if (in_cs) { cs++; if (cs_len > cs_max) cs_max = cs_len }
        in_cs = 0
    }
}

/^Trace / {
    if (pending != "") take(pending)
    pending = pc_of($0)
    next
}

/^Stopped execution of TB chain before/ {
    # The block logged last did not run.
    pending = ""
    next
}

/^cpu_io_recompile: rewound execution of TB to / {
    if (pending == "" || $NF "" != pending "") {
        print "count.awk: line " NR ": a rewind to " $NF " that does not follow that address's block (" pending ")" > "/dev/stderr"
        bad = 1
    } else if (inside) {
        rewound++
    }
    pending = ""
    next
}

/^cpu_io_recompile: / {
    print "count.awk: line " NR ": " $0 > "/dev/stderr"
    bad = 1
    next
}

END {
    if (pending != "") take(pending)
    if (inside) { print "count.awk: the log ends inside an interval" > "/dev/stderr"; bad = 1 }
    for (f in by_fn) printf "function %s insns %d\n", f, by_fn[f]
    exit bad
}
