#!/usr/bin/env bash
# Installs what podspec's runtime, tests and demo need on a fresh Debian machine that has Go and
# gcc: runc (the OCI runtime the reference runtime drives) and busybox-static (the userland of
# the example and test images), and crun and runsc (gVisor), the other OCI runtimes the tests run
# the demo pod on, and podman for its adapter (PODSPEC_PEER_RUNTIMES=0 skips these three), glibc's
# static libraries (libc6-dev) for the suite's real-program probe, mmdebstrap for the test that runs
# Debian's own nginx, curl and Python, docker-registry and apache2-utils (htpasswd) for the registry
# image tests, GNU time for the benchmarks; with --browser also chromium, in which the timeline and conformance report tests render their pages
# (scripts/test.sh asks for it; the demo does not). Go modules come from the module proxy on first
# build.
set -euo pipefail
browser=
[ "${1:-}" = --browser ] && browser=1
need=()
command -v runc >/dev/null 2>&1 || need+=(runc)
if [ "${PODSPEC_PEER_RUNTIMES:-1}" != 0 ]; then
  command -v crun >/dev/null 2>&1 || need+=(crun)
  command -v runsc >/dev/null 2>&1 || need+=(runsc)
  command -v podman >/dev/null 2>&1 || need+=(podman)
fi
# (grep without -q: with pipefail, -q exiting early would make busybox --list fail on SIGPIPE)
[ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -x sh >/dev/null || need+=(busybox-static)
# glibc's static libraries: the conformance suite builds its real-program probe with
# `gcc -static -pthread` (SEC-010 to SEC-013).
[ -n "$(gcc -print-file-name=libc.a 2>/dev/null | grep /)" ] || need+=(libc6-dev)
# mmdebstrap makes the Debian root filesystem of cmd/podspec's TestSEC010_SEC011_DebianProgramsRunInAPod.
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
# docker-registry (the CNCF distribution registry) and apache2-utils' htpasswd: the registry image
# tests start a registry on loopback, with basic auth (internal/registrytest).
[ -x /usr/bin/docker-registry ] || need+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || need+=(apache2-utils)
# GNU time: the benchmarks time every tool through it, for its own peak RSS (bench/internal/timing).
[ -x /usr/bin/time ] || need+=(time)
# chromium without its recommends (fonts, drivers, language packs): headless needs none of them.
lean=()
[ -z "$browser" ] || command -v chromium >/dev/null 2>&1 || lean+=(chromium)
if [ ${#need[@]} -gt 0 ] || [ ${#lean[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: need root to apt-get install ${need[*]} ${lean[*]}" >&2
    exit 1
  fi
  echo "install-deps: apt-get install ${need[*]} ${lean[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  [ ${#need[@]} -eq 0 ] || apt-get install -y -qq "${need[@]}" >/dev/null
  [ ${#lean[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${lean[@]}" >/dev/null
fi
go mod download
