#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `msprof collect --config board.ini --all` over a real SSH connection: an
# OpenSSH server started here on 127.0.0.1 (its own host key, a temporary
# config, a random high port, in the foreground, killed at the end) and a
# throwaway user with a random password (removed at the end). Checks the JOB
# directory comes back with its two timelines and three summaries, that no
# process list or environment seen during the run and no log holds the
# password, and that an ini file others can read is refused.
#   collect_ssh_test.sh <msprof> <soc program>
# Exit 77 (skipped) only without root, /usr/sbin/sshd or the tools it uses; CI
# installs openssh-server, openssh-client and procps (.ci/run), so it runs there.
set -euo pipefail
msprof=$1
program=$2
sshd=/usr/sbin/sshd
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: needs root (it creates and removes a throwaway user for the ssh login)"
  exit 77
fi
if [ ! -x "$sshd" ] || ! command -v ssh >/dev/null || ! command -v scp >/dev/null; then
  echo "SKIPPED: no OpenSSH server/client here (apt-get install openssh-server openssh-client)"
  exit 77
fi
for tool in ps pgrep useradd userdel chpasswd ssh-keygen timeout; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: $tool is missing (apt-get install procps passwd openssh-client coreutils)"
    exit 77
  fi
done

work=$(mktemp -d /tmp/msprof_ssh_test.XXXXXX)
user="msprof_t$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')"
pw="$(head -c 24 /dev/urandom | base64 | tr -d '/+=' | head -c 24)"
sshd_pid=""
collect_pid=""
made_run_sshd=""
cleanup() {
  [ -n "$collect_pid" ] && kill "$collect_pid" 2>/dev/null && wait "$collect_pid" 2>/dev/null
  [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null && wait "$sshd_pid" 2>/dev/null
  if id "$user" >/dev/null 2>&1; then
    find /tmp -maxdepth 1 -name 'msprof_collect_*' -user "$user" -exec rm -rf {} + 2>/dev/null
    userdel -r -f "$user" >/dev/null 2>&1
  fi
  [ -n "$made_run_sshd" ] && rmdir /run/sshd 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

useradd -m -s /bin/sh "$user"
printf '%s:%s\n' "$user" "$pw" | chpasswd  # through stdin, never an argument
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
if [ ! -d /run/sshd ]; then  # sshd's privilege separation directory
  mkdir -p /run/sshd && chmod 755 /run/sshd
  made_run_sshd=1
fi

for attempt in 1 2 3 4 5; do
  port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
  cat > "$work/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
PidFile $work/sshd.pid
PasswordAuthentication yes
KbdInteractiveAuthentication no
PubkeyAuthentication no
UsePAM no
PermitRootLogin no
AllowUsers $user
AuthorizedKeysFile none
StrictModes no
Subsystem sftp internal-sftp
EOF
  "$sshd" -D -f "$work/sshd_config" -E "$work/sshd.log" &
  sshd_pid=$!
  for _ in $(seq 50); do  # up to 5 s for it to listen
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && kill -0 "$sshd_pid" 2>/dev/null; then break; fi
  kill "$sshd_pid" 2>/dev/null || true
  wait "$sshd_pid" 2>/dev/null || true
  sshd_pid=""
done
[ -n "$sshd_pid" ] || fail "sshd did not start: $(cat "$work/sshd.log" 2>/dev/null)"

cat > "$work/board.ini" <<EOF
[ssh_config]
ip = 127.0.0.1
username = $user
pwd = $pw
port = $port
EOF
export MSPROF_SSH_KNOWN_HOSTS="$work/known_hosts"

# An ini file others can read is refused, naming it.
chmod 644 "$work/board.ini"
if "$msprof" collect -m "$program" --config "$work/board.ini" --output "$work/out" > "$work/refused.out" 2>&1; then
  fail "an ini file readable by others was accepted"
fi
grep -q "board.ini" "$work/refused.out" || fail "the refusal does not name the file: $(cat "$work/refused.out")"
grep -q "chmod 600" "$work/refused.out" || fail "the refusal does not say how to fix it"
chmod 600 "$work/board.ini"

# The collection, watched: ps, and the arguments and environment of every ssh, scp,
# sshd and msprof process (the askpass helper too), over and over while it runs.
timeout 180 "$msprof" collect -m "$program" --config "$work/board.ini" --output "$work/out" --all \
  > "$work/collect.out" 2> "$work/collect.err" &
collect_pid=$!
# The password to look for is in a 0600 file, so that no grep has it as an argument.
(umask 077 && printf '%s\n' "$pw" > "$work/pw")
seen=0
while kill -0 "$collect_pid" 2>/dev/null; do
  for pid in $(pgrep -x 'ssh|scp|sshd|msprof|sftp-server|soc_inference|timeout' || true); do
    if tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -qF -f "$work/pw"; then fail "the password is in the arguments of $pid"; fi
    if tr '\0' '\n' 2>/dev/null < "/proc/$pid/environ" | grep -qF -f "$work/pw"; then fail "the password is in the environment of $pid"; fi
  done 2>/dev/null
  if ps -eo args | grep -qF -f "$work/pw"; then fail "the password shows in ps"; fi
  seen=$((seen + 1))
done
rc=0
wait "$collect_pid" || rc=$?
collect_pid=""
[ "$rc" -eq 0 ] || fail "collect exited with $rc: $(cat "$work/collect.err")"
echo "process lists checked: $seen"
for f in "$work/collect.out" "$work/collect.err" "$work/sshd.log"; do
  if grep -qF -f "$work/pw" "$f"; then fail "the password is in $f"; fi
done
grep -q "plain text" "$work/collect.err" || fail "no warning about the ini file's password"

job=$(find "$work/out" -mindepth 1 -maxdepth 1 -name 'JOB*' -type d)
[ "$(echo "$job" | wc -l)" -eq 1 ] && [ -n "$job" ] || fail "expected one JOB directory in $work/out, got: $job"
[ -f "$job/info.json.0" ] && [ -d "$job/data" ] || fail "$job is not a JOB directory"
ls "$job/timeline"/task_time_0.*.json >/dev/null || fail "no task_time file: $(ls -R "$job")"
ls "$job/timeline"/acl_0.*.json >/dev/null || fail "no acl timeline file"
ls "$job/summary"/op_summary_0.*.csv >/dev/null || fail "no op_summary file"
ls "$job/summary"/acl_statistic_0_*.csv >/dev/null || fail "no acl_statistic file"
ls "$job/summary"/op_statistic_0_*.csv >/dev/null || fail "no op_statistic file"
# Nothing of the run is left in --output, nor on the board.
[ "$(find "$work/out" -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ] || fail "leftovers in --output: $(ls "$work/out")"
left=$(find /tmp -maxdepth 1 -name 'msprof_collect_*' -user "$user")
[ -z "$left" ] || fail "the board directory $left was not removed"
# A wrong password: a clear failure, not a hang.
sed -i "s/^pwd = .*/pwd = wrong$RANDOM/" "$work/board.ini"
if timeout 60 "$msprof" collect -m "$program" --config "$work/board.ini" --output "$work/out2" > "$work/wrong.out" 2>&1; then
  fail "a wrong password was accepted"
fi
grep -q "cannot log in" "$work/wrong.out" || fail "a wrong password gives: $(cat "$work/wrong.out")"
echo "ok: collect --all over ssh to 127.0.0.1:$port brought back $(basename "$job") with timeline/ and summary/"
