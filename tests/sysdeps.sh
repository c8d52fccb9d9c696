#!/usr/bin/env bash
# The system programs the test suite runs: Debian's chromium (browser tests), biber, pandoc,
# bibutils' ris2xml, R's Rscript and LibreOffice's soffice (they read the BibTeX, CSL-JSON, RIS
# and CSV exports back), node and npm (the site's search library and the README lint). Missing ones are installed with apt-get when we
# run as root; otherwise all of them are named in one line and make stops before any test runs.
set -euo pipefail
declare -A pkg=([chromium]=chromium [biber]=biber [pandoc]=pandoc [ris2xml]=bibutils
                [Rscript]=r-base-core [soffice]=libreoffice-calc-nogui [node]=nodejs [npm]=npm)
# Arguments name the programs to look for (`make` needs only node and npm); default: all.
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(chromium biber pandoc ris2xml Rscript soffice node npm)
# LibreOffice's soffice runs without Calc (its CSV filter) when only another component is
# installed: Calc counts as present only when its library is.
calc_lib=${SYSDEPS_CALC_LIB:-/usr/lib/libreoffice/program/libsclo.so}
have() {
  case "$1" in
    soffice) command -v soffice >/dev/null 2>&1 && [ -e "$calc_lib" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}
missing=()
for cmd in "${wanted[@]}"; do
  have "$cmd" || missing+=("${pkg[$cmd]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "make: installing ${missing[*]} with apt-get" >&2
  apt-get update -qq
  # The browser and node with what Debian recommends (fonts among them); the readers without.
  browser=() readers=()
  for p in "${missing[@]}"; do
    case "$p" in biber|pandoc|bibutils|r-base-core|libreoffice-calc-nogui) readers+=("$p") ;;
      *) browser+=("$p") ;;
    esac
  done
  export DEBIAN_FRONTEND=noninteractive
  [ ${#browser[@]} -eq 0 ] || apt-get install -y -qq "${browser[@]}" >/dev/null
  [ ${#readers[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${readers[@]}" >/dev/null
  exit 0
fi
echo "make needs system packages that are not installed: ${missing[*]} (as root: apt-get install -y ${missing[*]})" >&2
exit 1
