#!/usr/bin/env bash
# The file system the container image adds to an empty base (Jib's "scratch"; ordinal-cli/pom.xml
# runs this at pre-integration-test, before Jib): a Java runtime linked from the build's own JDK,
# the C libraries that runtime and the dependencies' native code load, and the few files of /etc
# a JVM reads. Nothing is downloaded. Usage: root.sh JAVA_HOME MODULES OUT
#
# The result is kept until `mvn clean` (a stamp beside it names the JDK, the modules and this
# script it was made from), so later builds skip jlink and Jib reuses its compressed layers.
set -euo pipefail

java_home=$1
modules=$2
out=$(realpath -m "$3") # absolute, as ldd names the runtime's own libraries
stamp="$out.made-from" # beside it, not in the image
wanted="$java_home $modules $(sha256sum <"$0" | cut -c1-16)"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  exit 0
fi
rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/home/nonroot"

"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$out/opt/java"

# CA certificates: a JDK that keeps them outside its own tree (Debian's links lib/security/cacerts
# to /etc/ssl/certs/java/cacerts) gives jlink none; the host's file is then copied in.
cacerts="$out/opt/java/lib/security/cacerts"
if [[ ! -s "$cacerts" ]]; then
  rm -f "$cacerts"
  cp -L "$java_home/lib/security/cacerts" "$cacerts"
fi

# C libraries, as the host's dynamic loader finds them: those of the launcher, the JVM and the
# runtime's own libraries (the desktop ones, AWT and sound, are never loaded by the services and
# are left out), plus what the dependencies' native code loads once extracted to /tmp (RocksDB for
# Kafka Streams needs libstdc++, libpthread, librt, libdl; zstd, snappy and lz4 need less).
elves=("$out/opt/java/bin/java" "$out/opt/java/lib/server/libjvm.so")
for so in "$out"/opt/java/lib/*.so; do
  case "$(basename "$so")" in
    libawt* | libfontmanager.so | libjavajpeg.so | libjawt.so | libjsound.so | liblcms.so | \
      libmlib_image.so | libsplashscreen.so) ;;
    *) elves+=("$so") ;;
  esac
done
libc_dir=""
needed=$(ldd "${elves[@]}" | awk '/=> \// {print $3} /^[ \t]*\/[^ ]*ld-linux/ {print $1}' | sort -u)
for lib in $needed; do
  case "$lib" in
    "$out"/*) continue ;; # the runtime's own
  esac
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
  if [[ "$(basename "$lib")" == libc.so.6 ]]; then
    libc_dir=$(dirname "$lib")
  fi
done
if [[ -z "$libc_dir" ]]; then
  echo "root.sh: ldd found no libc.so.6 for $java_home/bin/java; a JDK built for glibc is needed" >&2
  exit 1
fi
for name in libstdc++.so.6 libgcc_s.so.1 libm.so.6 libpthread.so.0 librt.so.1 libdl.so.2; do
  [[ -f "$out$libc_dir/$name" ]] || cp -L "$libc_dir/$name" "$out$libc_dir/$name"
done

# user 65532 (the image's user) by name, so the JVM finds a user.name and user.home
cat >"$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat >"$out/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
cat >"$out/etc/nsswitch.conf" <<'NSS'
passwd: files
group: files
hosts: files dns
NSS

echo "$wanted" >"$stamp"
