#!/usr/bin/env bash
# Gives a Debian 12 host the Node this project needs, 20.19 or later (Debian's
# own nodejs is 18.20): npm's `node` package, fetched by Debian's npm, in
# /usr/local/bin ahead of Debian's on the PATH (docs/operations/instance.md, "Node on
# Debian 12"). Run as root, from the checkout. Re-runnable: a Node on the PATH
# that the project accepts is kept.
#
# Behind a TLS proxy with a CA of its own, point NODE_EXTRA_CA_CERTS at a
# bundle that holds it; the default is the system's bundle.
set -euo pipefail

check="$(cd "$(dirname "$0")/../.." && pwd)/bin/check-node.mjs"
export NODE_EXTRA_CA_CERTS="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"

# The project's own preinstall check: the one rule for "new enough".
accepted() {
	command -v node >/dev/null 2>&1 && node "$check" >/dev/null 2>&1
}

if accepted; then
	echo "install-node.sh: Node $(node --version) on the PATH: nothing to change"
	exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm ca-certificates >/dev/null
npm install -g --no-audit --no-fund node@22 >/dev/null
hash -r
# Refuses in one line if the PATH still finds an older Node first.
node "$check"
echo "install-node.sh: Node $(node --version) in $(command -v node), npm $(npm --version)"
