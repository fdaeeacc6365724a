#!/usr/bin/env bash
# Installs the Debian packages the real-window screenshot tests need (Xvfb, CJK fonts,
# the xcb libraries Qt's xcb platform plugin loads, pdftotext/pdffonts to read exported PDFs,
# rsvg-convert to render exported SVGs as librsvg does). Where this cannot be done (not root,
# no apt-get, no registry), it says so and the display tests skip with a reason.
set -u
pkgs="xvfb fonts-noto-cjk poppler-utils librsvg2-bin libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0 libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-randr0 libxcb-xinerama0 libegl1 libgl1 libfontconfig1 libdbus-1-3"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
else
  echo "sysdeps: no dpkg here; display tests will skip unless Xvfb and CJK fonts are present"
  exit 0
fi
[ -z "$missing" ] && { echo "sysdeps: all display packages present"; exit 0; }
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "sysdeps: missing$missing; not root or no apt-get, display tests will skip"
  exit 0
fi
echo "sysdeps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
  echo "sysdeps: installed"
else
  echo "sysdeps: apt-get failed; display tests will skip"
fi
exit 0
