#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Mounting a PGN dump from an S3 bucket against the same file on local disk and against
# downloading it first (curl's own S3 signing: the client's download), on a Garage node this
# script starts on loopback. For the file plain and compressed by pzstd: the first mount (the
# index: local, remote, download + local), a remount on a new machine (an empty cache: the
# index shared in the bucket), and games read at random (the remote mount's block cache
# empty).
#
#   contrib/bench/remote.sh [GAMES] [GAMEFS]
#       GAMES   a generated corpus of that many games (default 100000; contrib/bench/gen, seed
#               20240601)
#       GAMEFS  the binary (default target/release/gamefs)
#
# The first mount is also measured from nginx on loopback (http://, when /usr/sbin/nginx is
# there): a server that hands the file over faster than Garage, so what is left is gamefs's.
# Beside it, two more: the local first mount while curl receives the object from nginx into
# nothing (the floor: what receiving the bytes costs these cores, whoever receives them), and
# the local and http:// first mounts with gamefs on core 0 and nginx on the other cores (as
# with a server on another machine). REMOTE_ROUNDS=N repeats every row N times.
#
# Files are kept in target/remotebench/. Needs garage (contrib/dev/setup test), pzstd, curl,
# fusermount3, bc; nginx (nginx-light) for the http:// columns.
set -euo pipefail
cd "$(dirname "$0")/../.."
games=${1:-100000}
gamefs=$(realpath "${2:-target/release/gamefs}")
dir=target/remotebench
mkdir -p "$dir"
dir=$(realpath "$dir")
gen=$(realpath target)/bench-gen/release/gamefs-bench-gen
[ -x "$gen" ] || (cd contrib/bench/gen && CARGO_TARGET_DIR=../../../target/bench-gen cargo build --release --quiet)
pgn=$dir/g$games.pgn
[ -f "$pgn" ] || "$gen" "$games" --seed 20240601 -o "$pgn" --threads 2 >/dev/null
[ -f "$pgn.zst" ] || pzstd -q -p 2 "$pgn" -o "$pgn.zst"
mnt=$dir/mnt
mkdir -p "$mnt"
reads=200

secs() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l | xargs printf '%.2f'
}

# A Garage node on loopback, with one bucket and one key.
node=$dir/garage
rm -rf "$node"
mkdir -p "$node"
s3=39500
cat >"$node/garage.toml" <<EOF
metadata_dir = "$node/meta"
data_dir = "$node/data"
db_engine = "sqlite"
replication_factor = 1
rpc_bind_addr = "127.0.0.1:39501"
rpc_public_addr = "127.0.0.1:39501"
rpc_secret = "c3ea8cb80333d04e208d136698b1a01ae370d463f0d435ab2177510b3478bf44"
[s3_api]
s3_region = "garage"
api_bind_addr = "127.0.0.1:$s3"
root_domain = ".s3.garage.localhost"
EOF
g() { garage -c "$node/garage.toml" "$@"; }
garage -c "$node/garage.toml" server >"$node/log" 2>&1 &
server=$!
web=
trap 'umount -l "$mnt" 2>/dev/null || true; kill $server $web 2>/dev/null || true' EXIT
until g status >/dev/null 2>&1; do sleep 0.5; done
g layout assign -z dc1 -c 10G "$(g node id -q | cut -d@ -f1)" >/dev/null
g layout apply --version 1 >/dev/null
key=GK0123456789abcdef01234567
secret=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
g key import --yes -n bench "$key" "$secret" >/dev/null
g bucket create games >/dev/null
g bucket allow --read --write --owner games --key bench >/dev/null
export AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_REGION=garage
export AWS_ENDPOINT_URL=http://127.0.0.1:$s3
curl_s3() {
    curl -sf --aws-sigv4 "aws:amz:garage:s3" --user "$key:$secret" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}
until curl_s3 -T /dev/null "$AWS_ENDPOINT_URL/games/ready" 2>/dev/null; do sleep 0.5; done

# nginx serving the files on loopback.
http=39510
if [ -x /usr/sbin/nginx ]; then
    mkdir -p "$node/www"
    ln -sf "$pgn" "$pgn.zst" "$node/www/"
    cat >"$node/nginx.conf" <<END
daemon off;
user root;
worker_processes 2;
pid $node/nginx.pid;
error_log $node/nginx-error.log;
events {}
http {
    access_log off;
    sendfile on;
    client_body_temp_path $node/nginx-body;
    proxy_temp_path $node/nginx-proxy;
    fastcgi_temp_path $node/nginx-fastcgi;
    uwsgi_temp_path $node/nginx-uwsgi;
    scgi_temp_path $node/nginx-scgi;
    server {
        listen 127.0.0.1:$http;
        root $node/www;
    }
}
END
    /usr/sbin/nginx -e "$node/nginx-error.log" -c "$node/nginx.conf" &
    web=$!
    until curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$http/$(basename "$pgn.zst")"; do sleep 0.2; done
fi

# Unmount and wait until the mount's process has ended.
unmount() {
    umount "$mnt"
    while pgrep -f "$gamefs mount $1 " >/dev/null; do sleep 0.1; done
}
read_games() {
    while read -r f; do cat "$1/$f"; done <"$2"
}

echo "Games: $games ($(basename "$pgn")), a Garage node on loopback; $reads games read at random."
echo
echo "| file | size | first mount, local | first mount, s3:// | download (curl) + local mount | remount, s3://, empty cache | random games, local | random games, s3://, empty cache | first mount, http:// (nginx) | download from nginx (curl) | first mount, local, while curl receives it from nginx | first mount, local, gamefs on core 0 | first mount, http://, gamefs on core 0, nginx on the others |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "${REMOTE_ROUNDS:-1}"); do
for f in "$pgn" "$pgn.zst"; do
    name=$(basename "$f")
    url=s3://games/$name
    curl_s3 -T "$f" "$AWS_ENDPOINT_URL/games/$name"
    export XDG_CACHE_HOME=$dir/cache-local
    rm -rf "$XDG_CACHE_HOME"
    sync
    local_first=$(secs "$gamefs" mount "$f" "$mnt")
    ls "$mnt/games" | shuf -n "$reads" --random-source=<(yes) >"$dir/random.txt"
    local_random=$(secs read_games "$mnt/games" "$dir/random.txt")
    unmount "$f"
    export XDG_CACHE_HOME=$dir/cache-a
    rm -rf "$XDG_CACHE_HOME"
    remote_first=$(secs "$gamefs" mount "$url" "$mnt")
    unmount "$url"
    download() {
        rm -rf "$dir/dl" "$dir/cache-dl"
        mkdir -p "$dir/dl"
        curl_s3 -o "$dir/dl/$name" "$AWS_ENDPOINT_URL/games/$name"
        XDG_CACHE_HOME=$dir/cache-dl "$gamefs" mount "$dir/dl/$name" "$mnt"
    }
    downloaded=$(secs download)
    unmount "$dir/dl/$name"
    export XDG_CACHE_HOME=$dir/cache-b
    rm -rf "$XDG_CACHE_HOME"
    remount=$(secs "$gamefs" mount "$url" "$mnt")
    remote_random=$(secs read_games "$mnt/games" "$dir/random.txt")
    unmount "$url"
    http_first=- http_download=- floor=- local_pinned=- http_pinned=-
    if [ -n "$web" ]; then
        web_url=http://127.0.0.1:$http/$name
        export XDG_CACHE_HOME=$dir/cache-http
        rm -rf "$XDG_CACHE_HOME"
        http_first="$(secs "$gamefs" mount "$web_url" "$mnt") s"
        unmount "$web_url"
        mkdir -p "$dir/dl"
        http_download="$(secs curl -sf -o "$dir/dl/$name" "$web_url") s"
        rm -rf "$dir/dl"
        # The floor: the local first mount while the object is received from nginx beside
        # it (by curl, into nothing), on the same cores.
        export XDG_CACHE_HOME=$dir/cache-floor
        rm -rf "$XDG_CACHE_HOME"
        curl -sf -o /dev/null "$web_url" &
        receiving=$!
        floor="$(secs "$gamefs" mount "$f" "$mnt") s"
        wait $receiving
        unmount "$f"
        # As with the server on another machine: gamefs on core 0, nginx on the others.
        if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
            all=0-$(($(nproc) - 1))
            for p in $web $(pgrep -P "$web"); do taskset -apc 1-$(($(nproc) - 1)) "$p" >/dev/null; done
            for target in "$f" "$web_url"; do
                export XDG_CACHE_HOME=$dir/cache-pinned
                rm -rf "$XDG_CACHE_HOME"
                took="$(secs taskset -c 0 "$gamefs" mount "$target" "$mnt") s"
                unmount "$target"
                if [ "$target" = "$f" ]; then local_pinned=$took; else http_pinned=$took; fi
            done
            for p in $web $(pgrep -P "$web"); do taskset -apc "$all" "$p" >/dev/null; done
        fi
    fi
    size=$(du -mL "$f" | cut -f1)
    echo "| $name | ${size} MB | ${local_first} s | ${remote_first} s | ${downloaded} s | ${remount} s | ${local_random} s | ${remote_random} s | ${http_first} | ${http_download} | ${floor} | ${local_pinned} | ${http_pinned} |"
done
done
