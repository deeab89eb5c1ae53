#!/usr/bin/env bash
# Installs pinbot for the verify-memory action and writes its path to the
# step output "path". With PINBOT_BINARY set, that binary is used as it is.
# Otherwise the release archive for this runner is downloaded from
# $PINBOT_RELEASE_URL/$PINBOT_REPOSITORY/releases/download/$PINBOT_VERSION/
# and checked against the release's checksums file before it is unpacked;
# a missing or mismatched checksum stops the step.
#
# Archive and checksum names follow the release pipeline (.goreleaser.yaml):
#   pinbot_<version without v>_<os>_<arch>.tar.gz, checksums.txt
set -euo pipefail

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }

if [[ -n "${PINBOT_BINARY:-}" ]]; then
  if [[ ! -x "$PINBOT_BINARY" ]]; then
    echo "::error::pinbot-binary $PINBOT_BINARY is not an executable file" >&2
    exit 1
  fi
  bin=$(cd "$(dirname "$PINBOT_BINARY")" && pwd)/$(basename "$PINBOT_BINARY")
  echo "Using the given pinbot: $bin"
  out path "$bin"
  exit 0
fi

version=${PINBOT_VERSION:-}
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "::error::no pinbot release to install: give the version input (vX.Y.Z) or use the action at a release tag (got '${version}')" >&2
  exit 1
fi

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  *) echo "::error::pinbot is released for Linux and macOS runners, not ${RUNNER_OS:-$(uname -s)}" >&2; exit 1 ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) echo "::error::pinbot is released for amd64 and arm64, not ${RUNNER_ARCH:-$(uname -m)}" >&2; exit 1 ;;
esac

archive="pinbot_${version#v}_${os}_${arch}.tar.gz"
sums="checksums.txt"
base="${PINBOT_RELEASE_URL%/}/${PINBOT_REPOSITORY}/releases/download/${version}"
dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}/pinbot-${version}-${os}-${arch}"
rm -rf "$dir"
mkdir -p "$dir"

echo "Downloading $base/$archive"
curl --fail --silent --show-error --location --retry 3 --proto '=https,http' -o "$dir/$archive" "$base/$archive"
curl --fail --silent --show-error --location --retry 3 --proto '=https,http' -o "$dir/$sums" "$base/$sums"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dir/$sums")
if [[ -z "$want" ]]; then
  echo "::error::$sums of pinbot $version lists no $archive" >&2
  exit 1
fi
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$dir/$archive" | awk '{ print $1 }')
else
  got=$(shasum -a 256 "$dir/$archive" | awk '{ print $1 }')
fi
if [[ "$got" != "$want" ]]; then
  echo "::error::$archive has SHA-256 $got, but $sums of pinbot $version says $want; not installing it" >&2
  exit 1
fi
echo "Checksum verified: $archive $got"

tar -xzf "$dir/$archive" -C "$dir" pinbot
chmod +x "$dir/pinbot"
"$dir/pinbot" --version || true
out path "$dir/pinbot"
