# calls.awk - per function, the calls made to it and their inclusive cost, from a
# callgrind output file (one event, Ir: instructions executed).
#
# Callgrind records every call edge as "cfn=<callee>", then "calls=<count> <target>",
# then a line whose last field is the inclusive cost of those calls. Summing the edges
# into a function over all its callers gives its calls and inclusive instructions.
# Names may be compressed: "(id) name" the first time, "(id)" afterwards.
#
# Prints, tab-separated, per call edge and per function (caller "*": all callers):
#   <calls> <inclusive instructions> <caller> <callee>

function name_of(spec,    id, rest) {
    if (spec !~ /^\(/) return spec
    id = substr(spec, 1, index(spec, ")"))
    rest = substr(spec, length(id) + 2)
    if (rest != "") names[id] = rest
    return names[id]
}

/^fn=/  { caller = name_of(substr($0, 4)); next }
/^cfn=/ { callee = name_of(substr($0, 5)); next }
/^calls=/ {
    split(substr($0, 7), c, " ")
    n_calls[callee] += c[1]
    edge = caller SUBSEP callee
    e_calls[edge] += c[1]
    want_cost = 1
    next
}
want_cost {
    incl[callee] += $NF
    e_incl[edge] += $NF
    want_cost = 0
    next
}

END {
    for (f in n_calls) printf "%d\t%d\t*\t%s\n", n_calls[f], incl[f], f
    for (e in e_calls) {
        split(e, p, SUBSEP)
        printf "%d\t%d\t%s\t%s\n", e_calls[e], e_incl[e], p[1], p[2]
    }
}
