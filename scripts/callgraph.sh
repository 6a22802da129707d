#!/usr/bin/env bash
# The module's call graph, from its sources: which file calls which, every
# call that breaks the layer table (scripts/layers.txt: a call up or
# sideways, a file missing from the table or outside its layer's folder),
# and every cycle (files that call each other, directly or round a circle,
# and functions that can reach themselves).
#
#   scripts/callgraph.sh [--strict] [--edges] [--doc] [DIR]
#
# DIR is the module (drivers/infiniband/sw/sroce). --edges also prints each
# cross-file call with its line. --strict exits 1 on any layer break or
# cycle. --doc prints only the generated section of
# Documentation/sroce-callgraph.rst (the layer table and the file graph);
# scripts/docs-check.sh --graph, a step of make check, compares the page
# with it, and scripts/docs-check.sh --update rewrites the page's section.
#
# How: kernel style puts a function body between a "{" and a "}" alone in
# column 0, so awk finds the definitions in the .c files and the static
# inline ones in the headers, and takes every "name(" in a body as a call.
# A call into a header's inline function is followed through it to the .c
# functions it calls (a static inline that calls nothing of ours is a
# leaf). Calls through function pointers (ops tables, work items, timers,
# encap_rcv, tx's fill callback) are not seen: Documentation/sroce-callgraph.rst
# lists them. Needs only bash and a POSIX awk.
set -euo pipefail

strict=0
edges=0
doc=0
dir=
for a in "$@"; do
	case $a in
	--strict) strict=1 ;;
	--edges) edges=1 ;;
	--doc) doc=1 ;;
	-*) echo "usage: $0 [--strict] [--edges] [--doc] [DIR]" >&2; exit 2 ;;
	*) dir=$a ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${dir:-$top/drivers/infiniband/sw/sroce}
layers=$top/scripts/layers.txt
cd "$dir"

files=$(find . -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort)

# shellcheck disable=SC2086
awk -v strict="$strict" -v show_edges="$edges" -v doc="$doc" \
	-v layers="$layers" '
# The layer table: row[file] is its tier, top first.
BEGIN {
	while ((getline ln < layers) > 0) {
		if (ln ~ /^[ \t]*(#|$)/)
			continue
		m = split(ln, w, /[ \t]+/)
		nrow++
		rfolder[nrow] = w[1]
		rname[nrow] = w[2]
		for (i = 3; i <= m; i++) {
			row[w[i]] = nrow
			rfiles[nrow] = rfiles[nrow] " " w[i]
			if (index(w[i], w[1] "/") != 1)
				lerr[++nlerr] = sprintf("%s: in tier %s of layer %s, outside %s/", \
					w[i], w[2], w[1], w[1])
		}
	}
	if (!nrow) {
		print "callgraph: no layer table at " layers > "/dev/stderr"
		exit 2
	}
}
function reset() { hdr = "" }
# The text of a line without comments and string contents.
function clean(s,    i, j) {
	if (incomment) {
		i = index(s, "*/")
		if (!i)
			return ""
		s = substr(s, i + 2)
		incomment = 0
	}
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
	gsub(/\/\*([^*]|\*[^\/])*\*\//, " ", s)
	sub(/\/\/.*/, "", s)
	i = index(s, "/*")
	if (i) {
		s = substr(s, 1, i - 1)
		incomment = 1
	}
	return s
}
FNR == 1 { file = FILENAME; inbody = 0; incomment = 0; reset() }
{
	line = clean($0)
	if (inbody) {
		if (line ~ /^}/) {
			inbody = 0
			reset()
			next
		}
		s = line
		while (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			c = substr(s, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", c)
			ncall++
			cfn[ncall] = cur
			cname[ncall] = c
			cline[ncall] = FNR
			s = substr(s, RSTART + RLENGTH)
		}
		next
	}
	if (line ~ /^{[ \t]*$/) {
		if (match(hdr, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			n = substr(hdr, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", n)
			cur = file SUBSEP n
			deffile[cur] = file
			defname[cur] = n
			defline[cur] = hdrline
			isstatic[cur] = hdr ~ /^[ \t]*static[ \t]/
			ishdr[cur] = file ~ /\.h$/
			if (!ishdr[cur])
				cfile[file] = 1
			if (!ishdr[cur] && !isstatic[cur])
				global[n] = cur
			if (ishdr[cur])
				inl[n] = cur
			inbody = 1
		}
		reset()
		next
	}
	if (line ~ /^[ \t]*$/ || line ~ /^#/ || line ~ /[;}{][ \t]*$/) {
		reset()
		next
	}
	if (hdr == "")
		hdrline = FNR
	hdr = hdr " " line
}
# The function @c names when called from a body in @f: the file'"'"'s own
# definition first, then a global one, then a header inline.
function resolve(f, c) {
	if ((f SUBSEP c) in deffile)
		return f SUBSEP c
	if (c in global)
		return global[c]
	if (c in inl)
		return inl[c]
	return ""
}
# Every .c function @fn reaches through header inlines only.
function through(fn, from, line,    i, t) {
	if ((fn, "seen") in walk)
		return
	walk[fn, "seen"] = 1
	for (i = 1; i <= ncall; i++) {
		if (cfn[i] != fn)
			continue
		t = resolve(deffile[fn], cname[i])
		if (t == "" || t == fn)
			continue
		if (ishdr[t])
			through(t, from, line)
		else
			addedge(from, t, line, defname[fn])
	}
}
function addedge(from, to, line, via,    a, b, k) {
	if (from == to)
		return
	a = deffile[from]
	b = deffile[to]
	if (!((from, to) in fedge)) {
		fedge[from, to] = 1
		fsucc[from] = fsucc[from] " " to
	}
	if (a == b)
		return
	if (!((a, b) in fileedge)) {
		fileedge[a, b] = 1
		succ[a] = succ[a] " " b
		nodes[a] = 1
		nodes[b] = 1
	}
	k = a SUBSEP b
	detail[k] = detail[k] sprintf("    %s:%d %s() -> %s()%s\n", a, line, \
		defname[from], defname[to], via == "" ? "" : " (via " via "())")
}
# Functions that reach @target from @fn (depth-first, iterative set).
function reaches(fn, target,    n, i, m, list, stack, top, u, v) {
	delete mark
	top = 1
	stack[1] = fn
	while (top > 0) {
		u = stack[top--]
		m = split(fsucc[u], list, " ")
		for (i = 1; i <= m; i++) {
			v = list[i]
			if (v == target)
				return 1
			if (!(v in mark)) {
				mark[v] = 1
				stack[++top] = v
			}
		}
	}
	return 0
}
# Every .c file in the table and in its folder, every call to a lower
# tier; prints what is not, returns how many.
function layer_check(    bad, f, i, j, a, b, x) {
	bad = nlerr
	for (i = 1; i <= nlerr; i++)
		printf "layer: %s\n", lerr[i]
	for (f in cfile)
		if (!(f in row)) {
			printf "layer: %s is in no tier of %s\n", f, layers
			bad++
		}
	for (f in row)
		if ((getline x < f) < 0) {
			printf "layer: %s names %s, which is not there\n", layers, f
			bad++
		}
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++) {
			a = names[i]
			b = names[j]
			if (!((a, b) in fileedge) || !(a in row) || !(b in row) || \
			    row[b] > row[a])
				continue
			printf "layer: call %s from %s (%s) to %s (%s)\n%s", \
				row[b] == row[a] ? "sideways" : "up", a, rname[row[a]], \
				b, rname[row[b]], detail[a SUBSEP b]
			bad++
		}
	return bad
}
# Each file that calls another, and the files it calls.
function print_graph(    i, j, a, s) {
	for (i = 1; i <= n; i++) {
		a = names[i]
		s = ""
		for (j = 1; j <= n; j++)
			if ((a, names[j]) in fileedge)
				s = s " " names[j]
		if (s != "")
			printf "  %s ->%s\n", a, s
	}
}
# The generated section of Documentation/sroce-callgraph.rst.
function print_doc(    r, i, a, s, m, w) {
	print "Layers, top to bottom (``scripts/layers.txt``; a file calls only"
	print "files of a tier below its own):"
	print ""
	print "=========  ==============  ============================================="
	print "folder     tier            files"
	print "=========  ==============  ============================================="
	for (r = 1; r <= nrow; r++) {
		m = split(rfiles[r], w, " ")
		s = ""
		for (i = 1; i <= m; i++) {
			a = w[i]
			sub(/^[^\/]*\//, "", a)
			s = s (i > 1 ? ", " : "") a
		}
		printf "%-9s  %-14s  %s\n", rfolder[r], rname[r], s
	}
	print "=========  ==============  ============================================="
	print ""
	print "Direct calls between files (``scripts/callgraph.sh``)::"
	print ""
	print_graph()
}
END {
	for (i = 1; i <= ncall; i++) {
		f = cfn[i]
		if (ishdr[f])
			continue
		t = resolve(deffile[f], cname[i])
		if (t == "" || t == f)
			continue
		if (ishdr[t]) {
			delete walk
			through(t, f, cline[i])
		} else {
			addedge(f, t, cline[i], "")
		}
	}
	for (a in nodes)
		reach[a, a] = 0
	for (a in nodes) {
		m = split(succ[a], l, " ")
		for (i = 1; i <= m; i++)
			reach[a, l[i]] = 1
	}
	for (k in nodes)
		for (a in nodes)
			if (reach[a, k])
				for (b in nodes)
					if (reach[k, b])
						reach[a, b] = 1
	n = 0
	for (a in nodes)
		names[++n] = a
	for (i = 1; i <= n; i++)		# insertion sort: a handful of names
		for (j = i; j > 1 && names[j - 1] > names[j]; j--) {
			t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
		}
	if (doc) {
		print_doc()
		exit 0
	}
	bad = layer_check()
	print "file graph (direct calls):"
	print_graph()
	if (show_edges) {
		print "calls between files:"
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				if ((names[i], names[j]) in fileedge)
					printf "  %s -> %s\n%s", names[i], names[j], \
						detail[names[i] SUBSEP names[j]]
	}
	for (i = 1; i <= n; i++) {
		a = names[i]
		if (a in done || !reach[a, a])
			continue
		s = ""
		for (j = 1; j <= n; j++)
			if (reach[a, names[j]] && reach[names[j], a]) {
				s = s " " names[j]
				done[names[j]] = 1
			}
		printf "cycle among files:%s\n", s
		for (j = 1; j <= n; j++)
			for (k = 1; k <= n; k++)
				if ((names[j], names[k]) in fileedge && \
				    index(s " ", " " names[j] " ") && \
				    index(s " ", " " names[k] " "))
					printf "%s", detail[names[j] SUBSEP names[k]]
		bad++
	}
	n = 0
	for (f in deffile)
		if (!ishdr[f] && reaches(f, f))
			rec[++n] = sprintf("%s:%d %s()", deffile[f], defline[f], defname[f])
	for (i = 1; i <= n; i++)
		for (j = i; j > 1 && rec[j - 1] > rec[j]; j--) {
			t = rec[j]; rec[j] = rec[j - 1]; rec[j - 1] = t
		}
	for (i = 1; i <= n; i++)
		printf "function reaches itself: %s\n", rec[i]
	bad += n
	if (!bad)
		print "no cycles, no call up or sideways"
	exit strict && bad ? 1 : 0
}' $files
