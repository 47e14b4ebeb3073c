#!/usr/bin/env bash
# The base images that docker/Dockerfile and docker/compose.yaml name, for an engine that
# cannot pull them (no registry reachable): debian:bookworm-slim from Debian's packages
# (debootstrap, then `docker import`) and postgres:15 built on it from Debian's
# postgresql-15 (docker/postgres/). An image the engine already has is left alone, and one
# it can pull is pulled instead, so the script changes nothing on a machine that reaches
# Docker Hub and running it twice builds nothing the second time. Needs root (debootstrap)
# and the Debian archive; builds use the host's network for apt.
# Usage: docker/build-base-images.sh [--no-pull] [--mirror URL]
#   --no-pull     do not try Docker Hub first (it waits up to 30 s for a registry)
#   --mirror URL  the Debian archive (default http://deb.debian.org/debian)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirror=http://deb.debian.org/debian
pull=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --no-pull) pull=0; shift ;;
    --mirror) mirror=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-base-images.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
done

docker info >/dev/null 2>&1 || { echo "build-base-images.sh: the Docker engine does not answer" >&2; exit 1; }
have() { docker image inspect "$1" >/dev/null 2>&1; }
try_pull() { ((pull)) && timeout 30 docker pull -q "$1" >/dev/null 2>&1; }

# debian:bookworm-slim: a minbase debootstrap trimmed as the official slim image is (no
# documentation, manual pages or translations; apt keeps no lists or packages), with the
# official image's sources (bookworm, bookworm-updates, bookworm-security).
debian_slim() {
  command -v debootstrap >/dev/null || { echo "build-base-images.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
  [[ $(id -u) == 0 ]] || { echo "build-base-images.sh: debootstrap needs root" >&2; exit 1; }
  local tmp root
  tmp=$(mktemp -d /tmp/debian-slim.XXXXXX)
  root=$tmp/rootfs
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 || {
    tail -20 "$tmp/debootstrap.log" >&2
    rm -rf "$tmp"
    echo "build-base-images.sh: debootstrap failed" >&2
    exit 1
  }
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
CFG
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
  echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
  echo 'APT::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<CFG
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
CFG
  # What the engine provides at run time, and what only the build needed.
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/{man,info,locale,lintian}/* "$root"/var/lib/apt/lists/* \
    "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/* \
    "$root"/tmp/* "$root"/etc/hostname "$root"/etc/machine-id "$root"/debootstrap
  : >"$root/etc/resolv.conf"
  tar --numeric-owner -C "$root" -c . |
    docker import --change 'CMD ["bash"]' \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'LABEL org.sitescout.base=debian-packages' \
      --message "debootstrap --variant=minbase bookworm $mirror" - debian:bookworm-slim >/dev/null
  rm -rf "$tmp"
}

for image in debian:bookworm-slim postgres:15; do
  if have "$image"; then
    echo "$image: present"
  elif try_pull "$image"; then
    echo "$image: pulled"
  elif [[ $image == debian:* ]]; then
    debian_slim
    echo "$image: built from Debian's packages"
  else
    log=$(mktemp)
    docker build --network host -t "$image" --label org.sitescout.base=debian-packages \
      "$here/postgres" >"$log" 2>&1 || {
      tail -20 "$log" >&2
      rm -f "$log"
      echo "build-base-images.sh: the build of $image failed" >&2
      exit 1
    }
    rm -f "$log"
    echo "$image: built from Debian's packages (docker/postgres/)"
  fi
done
