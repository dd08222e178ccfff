#!/bin/sh
# The repository stands alone: a clone with nothing beside it builds and
# passes its tests. Checked over the repository's files (git's list of
# tracked and not ignored files; without git, every file but build/,
# node_modules/ and .git/):
#
#   - no absolute path of one machine (a home folder, root's, /work);
#   - no code line (Makefile, shell, Python, JavaScript, C) reads
#     ../shared or SHARED_DIR: what the tests check is in spec/;
#   - every apt-get a script runs (install, update, ...) carries
#     DPkg::Lock::Timeout, so it waits for another apt instead of failing.
#
# The checks first run on a small tree with one fault of each kind, which
# they must name; then on the repository. Last, spec/ is compared byte for
# byte with the shared contract when a shared folder is found (SHARED_DIR,
# or shared beside the repository), and skipped with a line saying so when
# none is. CARC is not used; it is required like every tests/cli script.
CARC=${CARC:?CARC must name the carc binary}
fail() { echo "test_standalone: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
self=tests/cli/test_standalone.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# files DIR: the repository's files, relative to DIR, one a line
files() {
	if [ -e "$1/.git" ] && git -C "$1" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$1" ls-files -co --exclude-standard
	else
		(cd "$1" && find . \( -name .git -o -name build -o -name node_modules \) -prune \
			-o -type f -print | sed 's|^\./||')
	fi
}

# is_code PATH: true for files whose lines run (not prose, not data);
# is_script PATH: those that run commands (where an apt-get would run)
is_script() {
	case "$1" in Makefile|*/Makefile|*.mk|.ci/run|*.sh|*.bash) return 0 ;; esac
	return 1
}
is_code() {
	is_script "$1" && return 0
	case "$1" in *.py|*.mjs|*.js|*.c|*.h) return 0 ;; esac
	return 1
}

# grep_in LIST PATTERN: "FILE:LINE:TEXT" of every line matching PATTERN in
# the files LIST names (run in the tree's folder)
grep_in() {
	tr '\n' '\0' <"$1" | xargs -0 grep -n -I -E -- "$2" /dev/null 2>/dev/null
}
# a comment line of code: # ..., // ..., /* ..., * ...
comment='^[^:]+:[0-9]+:[[:space:]]*(#|//|/\*|\*)'
apt='(^|[^-[:alnum:]_./])apt-get([[:space:]]+-[^[:space:]]+)*[[:space:]]+(install|update|upgrade|dist-upgrade|remove|purge)'

# check DIR: prints one line per fault ("PATH:LINE: what"); returns 1 on any
check() {
	files "$1" | grep -v -x -F "$self" >"$tmp/files"
	: >"$tmp/code"; : >"$tmp/scripts"
	while IFS= read -r f; do
		is_code "$f" && echo "$f" >>"$tmp/code"
		is_script "$f" && echo "$f" >>"$tmp/scripts"
	done <"$tmp/files"
	(
		cd "$1" || exit 1
		grep_in "$tmp/files" '/(work|home|root)/' |
			sed 's/^\([^:]*:[0-9]*\):/\1: an absolute path of one machine: /'
		grep_in "$tmp/code" '\.\./shared|SHARED_DIR' | grep -v -E "$comment" |
			sed 's/^\([^:]*:[0-9]*\):/\1: reads the shared folder (use spec\/): /'
		grep_in "$tmp/scripts" "$apt" | grep -v -E "$comment" | grep -v 'DPkg::Lock::Timeout' |
			sed 's/^\([^:]*:[0-9]*\):/\1: apt-get without -o DPkg::Lock::Timeout: /'
	) >"$tmp/faults"
	cat "$tmp/faults"
	[ ! -s "$tmp/faults" ]
}

# 1. the checks find each kind of fault, naming the file
mk="$tmp/bad"
mkdir -p "$mk/tests" "$mk/scripts" "$mk/docs"
printf '#!/bin/sh\nspec=/ho''me/someone/carc/spec/x.json\n' >"$mk/tests/t1.sh"
printf '#!/bin/sh\n# a comment on ../shared is no read\ncat "${SHARED''_DIR:-../sha''red}/x"\n' >"$mk/tests/t2.sh"
printf '#!/bin/sh\napt-get -o DPkg::Lock::Timeout=600 install -y a\napt-get install -y b\n' >"$mk/scripts/i.sh"
printf 'See /wo''rk/shared/rules.md.\nRun apt-get install x by hand.\n' >"$mk/docs/d.md"
check "$mk" >"$tmp/out" && fail "a tree with faults passed"
for want in 'tests/t1.sh:2: an absolute path' 'tests/t2.sh:3: reads the shared' \
	'scripts/i.sh:3: apt-get without' 'docs/d.md:1: an absolute path'; do
	grep -q "^$want" "$tmp/out" || { cat "$tmp/out" >&2; fail "the checks missed: $want"; }
done
[ "$(wc -l <"$tmp/out")" -eq 4 ] || { cat "$tmp/out" >&2; fail "the checks flagged more than the 4 faults"; }

# 2. the repository itself
check "$root" >"$tmp/out" || { cat "$tmp/out" >&2; fail "the repository does not stand alone (above)"; }

# 3. spec/ matches the shared contract, when there is one to compare with
shared=${SHARED_DIR:-$root/../shared}
if [ -f "$shared/spec/README.md" ] && [ -f "$shared/spec/base-tiles.json" ]; then
	cmp -s "$root/spec/contract.md" "$shared/spec/README.md" ||
		fail "spec/contract.md differs from $shared/spec/README.md (copy it unchanged)"
	cmp -s "$root/spec/base-tiles.json" "$shared/spec/base-tiles.json" ||
		fail "spec/base-tiles.json differs from $shared/spec/base-tiles.json (copy it unchanged)"
	echo "test_standalone: spec/ is identical to $shared/spec"
else
	echo "test_standalone: skipped comparing spec/ with the shared contract: no shared folder beside the repository (SHARED_DIR names one)"
fi
exit 0
