#!/usr/bin/env bash
# Builds the OCI image archives k8ts's real-node tests use, from Debian's
# static busybox (package busybox-static), with no download:
#
#   OUT/pause.tar    k8ts.local/pause:1      the sandbox ("pause") image: Cmd sleep forever
#   OUT/busybox.tar  k8ts.local/busybox:1    busybox with its applets (sh, echo, sleep, httpd, cat...)
#
# Each archive is an OCI image layout (oci-layout, index.json naming the image
# in org.opencontainers.image.ref.name, blobs/sha256/{layer,config,manifest})
# that `ctr -n k8s.io images import --index-name NAME FILE` loads. Building is
# deterministic (fixed mtimes, sorted entries), so the digests do not change
# from run to run.
#
# Usage: scripts/images.sh [OUT_DIR]   (default: build/images)
set -euo pipefail

OUT=${1:-"$(cd "$(dirname "$0")/.." && pwd)/build/images"}
BUSYBOX=${BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || { echo "images.sh: $BUSYBOX not found (apt-get install busybox-static)" >&2; exit 1; }
if ! file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' && ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "images.sh: $BUSYBOX is not statically linked (apt-get install busybox-static)" >&2; exit 1
fi
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }

# rootfs DIR: busybox in /bin with one symlink per applet, root's passwd/group, /tmp.
rootfs() {
  local dir=$1
  mkdir -p "$dir/bin" "$dir/etc" "$dir/tmp" "$dir/var/www" "$dir/proc" "$dir/sys" "$dir/dev"
  cp "$BUSYBOX" "$dir/bin/busybox"
  for applet in $("$BUSYBOX" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$dir/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$dir/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$dir/etc/group"
  chmod 1777 "$dir/tmp"
}

# image NAME CMD_JSON FILE: one-layer OCI layout archive of a fresh rootfs.
image() {
  local name=$1 cmd=$2 file=$3
  local d="$WORK/$(basename "$file" .tar)"
  rootfs "$d/rootfs"
  mkdir -p "$d/oci/blobs/sha256"
  tar -C "$d/rootfs" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$d/layer.tar" .
  local layer; layer=$(sha "$d/layer.tar")
  cp "$d/layer.tar" "$d/oci/blobs/sha256/$layer"
  printf '{"architecture":"%s","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"k8ts scripts/images.sh"}]}' \
    "$ARCH" "$cmd" "$layer" > "$d/config.json"
  local config; config=$(sha "$d/config.json")
  cp "$d/config.json" "$d/oci/blobs/sha256/$config"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config" "$(size "$d/config.json")" "$layer" "$(size "$d/layer.tar")" > "$d/manifest.json"
  local manifest; manifest=$(sha "$d/manifest.json")
  cp "$d/manifest.json" "$d/oci/blobs/sha256/$manifest"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"},"platform":{"architecture":"%s","os":"linux"}}]}' \
    "$manifest" "$(size "$d/manifest.json")" "$name" "$ARCH" > "$d/oci/index.json"
  printf '{"imageLayoutVersion":"1.0.0"}' > "$d/oci/oci-layout"
  # A temp name of its own beside the archive: two test files that find the archives missing build at once
  # (node --test runs two at a time), and a shared "$file.tmp" could interleave their writes; mv is atomic.
  local tmp; tmp=$(mktemp "$file.XXXXXX")
  tar -C "$d/oci" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$tmp" oci-layout index.json blobs
  chmod 644 "$tmp"
  mv "$tmp" "$file"
  echo "$name $file sha256:$manifest"
}

image k8ts.local/pause:1 '["/bin/sleep","2147483647"]' "$OUT/pause.tar"
image k8ts.local/busybox:1 '["/bin/sh"]' "$OUT/busybox.tar"
