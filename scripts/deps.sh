#!/bin/sh
# Installs the Debian packages the build and the tests need, when missing.
# Called by the Makefile; safe to run again (it only installs what lacks).
set -e
PKGS="build-essential pkg-config curl clang libclang-rt-dev libjansson-dev libcmocka-dev libsqlite3-dev libpq-dev libsodium-dev libicu-dev libwebsockets-dev libwebsockets-evlib-uv python3"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# scripts/apt.sh waits for the package locks when another apt runs
$SUDO sh "$(dirname "$0")/apt.sh" update
$SUDO sh "$(dirname "$0")/apt.sh" install $missing >/dev/null
echo "deps: done"
