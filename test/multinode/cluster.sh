#!/usr/bin/env bash
# test/multinode/cluster.sh - a small Slurm cluster of emulated hosts on this one machine.
#
# Must run as root. Each emulated host hK (K = 1..N) is a holder process with its own network, UTS
# and mount namespaces: hostname hK, private /tmp, /dev/shm and /etc/hosts, and one veth (named
# pmn0 inside every host) on a bridge in the root namespace. Addresses come only from the private
# /24 created here (default 10.200.0.0/24): the root network namespace gets .1 on the bridge
# (slurmctld and srun listen there), host hK gets .(10+K). Hosts have no default route and
# forwarding is not enabled, so nothing reaches beyond the bridge.
#
# The controller side (munged, slurmctld, and every srun/sinfo/... started through this script)
# runs in the root network namespace but in a mount namespace of its own, "ctl", whose /etc/hosts
# names the controller and all hosts by their bridge addresses. Everywhere (ctl and hosts)
# /etc/nsswitch.conf says `hosts: files` and /etc/resolv.conf names no server, so no name look-up
# ever goes to the machine's DNS server (Slurm and munge do reverse look-ups of 10.200.0.1).
#
# Usage (executed):
#   cluster.sh up N                 build the cluster and wait until sinfo shows N idle nodes
#   cluster.sh down                 tear everything down (idempotent, safe after a partial up)
#   cluster.sh run HOST -- CMD...   run CMD inside HOST's net, uts and mount namespaces
#                                   (HOST = ctl: the controller's mount namespace)
#   cluster.sh srun ARGS...         srun from the controller side (SLURM_CONF set); also sinfo,
#                                   squeue, scontrol, scancel, sbatch the same way
#   cluster.sh pids HOST            PIDs of every process in HOST's network namespace
#   cluster.sh env                  print the Open MPI pinning exports (and SLURM_CONF)
#   cluster.sh status               what is up
#
# Usage (sourced): `source cluster.sh` defines mn_up, mn_down, mn_run, mn_srun, mn_slurm (any
# Slurm client), mn_pids, mn_hosts, mn_conf, mn_ompi_env, mn_snapshot, mn_leftovers and mn_trap_down
# (installs `trap mn_down EXIT` and makes INT and TERM exit), without running anything. The public
# functions run in subshells with `set -euo pipefail`, whatever the caller's shell options are.
#
# Tunables (environment): PAMIR_MN_RUN (run directory, default /run/pamir-multinode),
# PAMIR_MN_NET (first three octets of the /24, default 10.200.0), PAMIR_MN_BRIDGE (default pmnbr0),
# PAMIR_MN_UP_TIMEOUT (seconds to wait for idle nodes, default 60), PAMIR_MN_KEEP_ON_FAIL=1 (leave a
# failed `up` in place for inspection instead of tearing it down).

# Conditions given to _mn_wait are single-quoted on purpose: they expand inside `bash -c`.
# shellcheck disable=SC2016

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
fi

MN_RUN=${PAMIR_MN_RUN:-/run/pamir-multinode}
MN_NET=${PAMIR_MN_NET:-10.200.0}
MN_BR=${PAMIR_MN_BRIDGE:-pmnbr0}
MN_IF=pmn0                      # interface name inside every emulated host
MN_VETH_PREFIX=pmn-             # root-side veth of host hK: pmn-hK
MN_HOST_PREFIX=h
MN_CPUS=2
MN_UP_TIMEOUT=${PAMIR_MN_UP_TIMEOUT:-60}
MN_PACKAGES=(slurm-wlm slurmd slurmctld munge iproute2 util-linux)

_mn_log() { printf '[cluster] %s\n' "$*" >&2; }
_mn_dbg() { [[ ${PAMIR_MN_DEBUG:-0} != 1 ]] || printf '[cluster] %s %s\n' "$EPOCHREALTIME" "$*" >&2; }
_mn_die() { printf '[cluster] error: %s\n' "$*" >&2; exit 1; }

_mn_need_root() { [[ $(id -u) -eq 0 ]] || _mn_die "must run as root"; }

# Install missing Debian packages (checked with dpkg-query first; apt-get only when something is missing).
_mn_ensure_packages() {
    local missing=() p
    for p in "$@"; do
        if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
            missing+=("$p")
        fi
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    _mn_log "installing ${missing[*]}"
    timeout 300 apt-get update -qq >&2 || _mn_die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2 || _mn_die "apt-get install ${missing[*]} failed"
}

# ---- waiting and process bookkeeping ----

# Poll a condition until it holds, bounded by timeout(1). Usage: _mn_wait SECS 'CODE' [ARGS...]
# CODE runs in `bash -c` with ARGS as $1, $2, ...; besides external commands it may call the helper
# functions exported below.
_MN_CHILD=""
_mn_wait() {
    local secs=$1 code=$2 rc=0
    shift 2
    # In the background and waited for: `wait` returns at once when a trapped signal arrives.
    timeout "$secs" bash -c "until { $code; } >/dev/null 2>&1; do sleep 0.1; done" _ "$@" </dev/null &
    _MN_CHILD=$!
    wait "$_MN_CHILD" || rc=$?
    _MN_CHILD=""
    return "$rc"
}
_mn_kill_child() {
    [[ -n ${_MN_CHILD:-} ]] && kill -TERM "$_MN_CHILD" 2>/dev/null
    _MN_CHILD=""
    return 0
}

# True if PID is gone or a zombie (PID 1 here reaps orphans only every few seconds).
_mn_dead() {
    local s
    { read -r s <"/proc/$1/stat"; } 2>/dev/null || return 0
    s=${s##*) }
    [[ ${s:0:1} == Z ]]
}
_mn_all_dead() {
    local p
    for p in "$@"; do _mn_dead "$p" || return 1; done
}
# PIDs of every live process in namespace NSID ("net:[...]" or "mnt:[...]", as readlink shows it).
_mn_ns_pids() {
    local nsid=$1 path link pid
    [[ -n $nsid ]] || return 0
    while read -r path link; do
        [[ $link == "$nsid" ]] || continue
        pid=${path#/proc/}
        pid=${pid%%/*}
        _mn_dead "$pid" || printf '%s\n' "$pid"
    done < <(find /proc/[0-9]*/ns/"${nsid%%:*}" -maxdepth 0 -printf '%p %l\n' 2>/dev/null)
    return 0
}
_mn_ns_empty() { [[ -z $(_mn_ns_pids "$1") ]]; }
export -f _mn_dead _mn_all_dead _mn_ns_pids _mn_ns_empty

# /proc start time of a PID (field 22 of /proc/PID/stat), to tell a recorded process from a reused PID.
_mn_starttime() {
    local s
    { read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
    s=${s##*) }
    # shellcheck disable=SC2086
    set -- $s
    printf '%s\n' "${20}"
}

# Record a PID in FILE as "PID STARTTIME".
_mn_record() {
    local pid=$1 file=$2 st
    st=$(_mn_starttime "$pid") || st=0
    printf '%s %s\n' "$pid" "$st" >"$file"
}

# Print the PID recorded in FILE if that very process is still alive.
_mn_rec_alive() {
    local file=$1 pid st now
    [[ -s $file ]] || return 1
    read -r pid st <"$file" || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    now=$(_mn_starttime "$pid") || return 1
    [[ $st == 0 || $now == "$st" ]] || return 1
    _mn_dead "$pid" && return 1
    printf '%s\n' "$pid"
}

# Stop the process recorded in FILE: SIGTERM, up to SECS seconds, then SIGKILL (said aloud unless
# QUIET is given).
_mn_stop_rec() {
    local file=$1 secs=${2:-5} quiet=${3:-} pid
    pid=$(_mn_rec_alive "$file") || return 0
    kill -TERM "$pid" 2>/dev/null || true
    if ! _mn_wait "$secs" '_mn_dead "$1"' "$pid"; then
        if [[ -z $quiet ]]; then _mn_log "pid $pid ($(basename "$file")) ignored SIGTERM for ${secs}s: SIGKILL"; fi
        _mn_dbg "SIGKILL to $(basename "$file") (pid $pid)"
        kill -KILL "$pid" 2>/dev/null || true
        _mn_wait 3 '_mn_dead "$1"' "$pid" || _mn_log "pid $pid still alive after SIGKILL"
    fi
}

# The same for several processes at once: _mn_stop_recs SECS FILE...
_mn_stop_recs() {
    local secs=$1 f pid pids=()
    shift
    for f in "$@"; do
        pid=$(_mn_rec_alive "$f") && pids+=("$pid")
    done
    [[ ${#pids[@]} -gt 0 ]] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null
    if ! _mn_wait "$secs" '_mn_all_dead "$@"' "${pids[@]}"; then
        for pid in "${pids[@]}"; do
            _mn_dead "$pid" && continue
            _mn_log "pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) ignored SIGTERM for ${secs}s: SIGKILL"
            kill -KILL "$pid" 2>/dev/null
        done
        _mn_wait 3 '_mn_all_dead "$@"' "${pids[@]}"
    fi
    return 0
}

# ---- hosts ----

_mn_host_names() {
    local d
    [[ -d $MN_RUN/hosts ]] || return 0
    for d in "$MN_RUN"/hosts/*/; do
        [[ -d $d ]] && basename "$d"
    done | sort -V
}

# Directory of a host, or of the controller namespace (ctl).
_mn_dir() {
    if [[ $1 == ctl ]]; then printf '%s\n' "$MN_RUN/ctl"; else printf '%s\n' "$MN_RUN/hosts/$1"; fi
}

# Namespace id recorded at `up`: the network namespace of a host, the mount namespace of ctl.
_mn_nsid() {
    local f
    f=$(_mn_dir "$1")/nsid
    [[ -s $f ]] && cat "$f"
}

_mn_holder_pid() {
    local pid
    pid=$(_mn_rec_alive "$(_mn_dir "$1")/holder.pid") || _mn_die "host $1 is not up"
    printf '%s\n' "$pid"
}

# Run a command on the controller side: root network namespace, ctl mount namespace, SLURM_CONF.
_mn_in_ctl() {
    local pid
    pid=$(_mn_holder_pid ctl)
    nsenter -t "$pid" --mount --wd=/ -- env SLURM_CONF="$MN_RUN/slurm.conf" "$@"
}

# Private name resolution: /etc/hosts given, `hosts: files` only, no DNS server.
_mn_write_resolution() {
    local d=$1 hosts=$2
    cp "$hosts" "$d/etc-hosts"
    if [[ -e /etc/nsswitch.conf ]]; then
        sed -E 's/^(hosts|networks):.*/\1: files/' /etc/nsswitch.conf >"$d/nsswitch.conf"
    else
        printf 'hosts: files\nnetworks: files\n' >"$d/nsswitch.conf"
    fi
    printf '# pamir multinode test: no DNS server\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n' \
        >"$d/resolv.conf"
}

# The scripts run by the holder processes ($1 = name, $2 = directory). Bind mounts only happen
# inside the new mount namespace (private propagation), never in the machine's.
# shellcheck disable=SC2016
_MN_RESOLUTION_BINDS='mount --bind "$2/etc-hosts" /etc/hosts
if [ -e /etc/nsswitch.conf ]; then mount --bind "$2/nsswitch.conf" /etc/nsswitch.conf; fi
if [ -e /etc/resolv.conf ]; then mount --bind "$2/resolv.conf" /etc/resolv.conf; fi'
_MN_HOLDER_SCRIPT="set -e
hostname \"\$1\"
mount --bind \"\$2/tmp\" /tmp
mount --bind \"\$2/shm\" /dev/shm
$_MN_RESOLUTION_BINDS
ip link set lo up
: >\"\$2/ready\"
exec -a \"pamir-mn-holder-\$1\" sleep infinity"
_MN_CTL_SCRIPT="set -e
$_MN_RESOLUTION_BINDS
: >\"\$2/ready\"
exec -a pamir-mn-ctl sleep infinity"

# Start a holder: _mn_start_holder NAME DIR SCRIPT UNSHARE-ARGS...
# Long-lived processes start under setsid: a Ctrl-C in the terminal must not reach them (teardown
# stops them in order). No job control here, so setsid does not fork and $! is the process itself.
_mn_start_holder() {
    local name=$1 d=$2 script=$3
    shift 3
    setsid unshare "$@" --propagation private -- bash -c "$script" _ "$name" "$d" \
        </dev/null >"$d/holder.log" 2>&1 &
    _mn_record $! "$d/holder.pid"
    disown
}

# Wait for a holder to be ready and record its namespace id (KIND: net or mnt).
_mn_holder_ready() {
    local name=$1 kind=$2 d pid
    d=$(_mn_dir "$name")
    pid=$(_mn_holder_pid "$name")
    _mn_wait 10 '[ -e "$1/ready" ] || _mn_dead "$2"' "$d" "$pid" || true
    [[ -e $d/ready ]] || { _mn_dump_logs; _mn_die "$name: namespaces not set up"; }
    readlink "/proc/$pid/ns/$kind" >"$d/nsid"
}

_mn_write_conf() {
    local n=$1 ctl_name=$2 k conf=$MN_RUN/slurm.conf
    {
        echo "# generated by test/multinode/cluster.sh"
        echo "ClusterName=pamirmn"
        echo "SlurmctldHost=${ctl_name}(${MN_NET}.1)"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$MN_RUN/munge/munge.socket"
        echo "ProctrackType=proctrack/pgid"
        echo "TaskPlugin=task/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "SchedulerType=sched/builtin"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "JobCompType=jobcomp/none"
        echo "MpiDefault=none"
        echo "MailProg=/bin/true"
        echo "StateSaveLocation=$MN_RUN/ctld"
        echo "SlurmctldPidFile=$MN_RUN/pids/slurmctld.daemon.pid"
        echo "SlurmctldLogFile=$MN_RUN/log/slurmctld.log"
        echo "SlurmdSpoolDir=$MN_RUN/spool/%n"
        echo "SlurmdPidFile=$MN_RUN/pids/slurmd-%n.daemon.pid"
        echo "SlurmdLogFile=$MN_RUN/log/slurmd-%n.log"
        echo "SlurmdParameters=config_overrides"
        echo "SlurmctldPort=6817"
        echo "SlurmdPort=6818"
        echo "TmpFS=/tmp"
        echo "ReturnToService=2"
        # An MPI job whose rank dies must end: kill the other tasks at once, and quickly.
        echo "KillOnBadExit=1"
        echo "KillWait=2"
        echo "MessageTimeout=10"
        echo "SlurmdTimeout=60"
        echo "InactiveLimit=0"
        echo "MinJobAge=30"
        echo "SlurmctldDebug=info"
        echo "SlurmdDebug=info"
        for ((k = 1; k <= n; k++)); do
            echo "NodeName=${MN_HOST_PREFIX}$k NodeAddr=${MN_NET}.$((10 + k)) NodeHostname=${MN_HOST_PREFIX}$k CPUs=$MN_CPUS State=UNKNOWN"
        done
        echo "PartitionName=mn Nodes=${MN_HOST_PREFIX}[1-$n] Default=YES MaxTime=INFINITE State=UP"
    } >"$conf"
    # mpi.conf (read from slurm.conf's directory). Here the plugin's tree fence never leaves the node
    # (each slurmstepd is a lone root: child_cntr=0), and the default uses it for every fence that
    # collects no data, so such a fence only waits for local ranks. Open MPI's closing barrier in
    # MPI_Init is one: a rank then sends to a peer still in its modex, which crashes in btl/tcp (NULL
    # callback for tag 65) in ~3% of 4-rank runs. The ring fence is a real barrier.
    {
        echo "# generated by test/multinode/cluster.sh"
        echo "PMIxCollFence=ring"
    } >"$MN_RUN/mpi.conf"
}

# Tails of every log, for a failed `up`.
_mn_dump_logs() {
    local f
    for f in "$MN_RUN"/log/* "$MN_RUN"/munge/munged.log "$MN_RUN"/ctl/holder.log "$MN_RUN"/hosts/*/holder.log; do
        [[ -s $f ]] || continue
        printf '[cluster] ---- tail of %s ----\n' "$f" >&2
        tail -n 15 "$f" >&2
    done
    if [[ -s $MN_RUN/slurm.conf ]] && _mn_rec_alive "$MN_RUN/ctl/holder.pid" >/dev/null; then
        printf '[cluster] ---- sinfo ----\n' >&2
        (_mn_in_ctl timeout 5 sinfo -N -l >&2 2>&1) || true
    fi
}

_mn_up() {
    local n=${1:-}
    if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > 32)); then _mn_die "usage: up N (1 <= N <= 32)"; fi
    _mn_need_root
    _mn_ensure_packages "${MN_PACKAGES[@]}"
    [[ ! -e $MN_RUN ]] || _mn_die "$MN_RUN exists: cluster already up (or stale); run 'down' first"
    ip link show "$MN_BR" >/dev/null 2>&1 && _mn_die "bridge $MN_BR already exists; run 'down' first"
    # (no `| grep -q` under pipefail: grep quitting early can fail the pipeline with SIGPIPE)
    if [[ $(ip -4 -o addr show) == *" ${MN_NET}."* ]]; then
        _mn_die "${MN_NET}.0/24 is already in use on this machine; set PAMIR_MN_NET to a free private /24"
    fi
    local ctl_name k h d pid ctl
    ctl_name=$(hostname)
    for ((k = 1; k <= n; k++)); do
        [[ ${MN_HOST_PREFIX}$k != "$ctl_name" ]] || _mn_die "emulated host name ${MN_HOST_PREFIX}$k equals the real hostname"
    done
    [[ -s /etc/munge/munge.key ]] || _mn_die "/etc/munge/munge.key missing (the munge package creates it)"

    local t0=$EPOCHREALTIME
    # From here on, a failed or interrupted up tears down what it built.
    trap '_mn_up_failed' EXIT
    trap '_mn_kill_child; exit 130' INT
    trap '_mn_kill_child; exit 143' TERM
    mkdir -p "$MN_RUN"/{pids,log,ctld,spool,hosts,bin,ctl}
    chmod 0755 "$MN_RUN"

    # Bridge in the root namespace, with the controller's address.
    ip link add "$MN_BR" type bridge
    ip addr add "${MN_NET}.1/24" dev "$MN_BR"
    ip link set "$MN_BR" up

    # /etc/hosts of the controller side and of every host: everyone by bridge address.
    {
        echo "127.0.0.1 localhost"
        echo "${MN_NET}.1 ${ctl_name}"
        for ((k = 1; k <= n; k++)); do echo "${MN_NET}.$((10 + k)) ${MN_HOST_PREFIX}$k"; done
    } >"$MN_RUN/etc-hosts"

    # Holder processes: the controller's mount namespace, then one per host (net + uts + mount).
    _mn_write_resolution "$MN_RUN/ctl" "$MN_RUN/etc-hosts"
    _mn_start_holder ctl "$MN_RUN/ctl" "$_MN_CTL_SCRIPT" --mount
    for ((k = 1; k <= n; k++)); do
        h=${MN_HOST_PREFIX}$k
        d=$MN_RUN/hosts/$h
        mkdir -p "$d/tmp" "$d/shm" "$MN_RUN/spool/$h"
        chmod 1777 "$d/tmp" "$d/shm"
        _mn_write_resolution "$d" "$MN_RUN/etc-hosts"
        _mn_start_holder "$h" "$d" "$_MN_HOLDER_SCRIPT" --net --uts --mount
    done
    _mn_holder_ready ctl mnt
    ctl=$(_mn_holder_pid ctl)
    for ((k = 1; k <= n; k++)); do
        h=${MN_HOST_PREFIX}$k
        _mn_holder_ready "$h" net
        pid=$(_mn_holder_pid "$h")
        ip link add "${MN_VETH_PREFIX}$h" type veth peer name "$MN_IF" netns "$pid"
        ip link set "${MN_VETH_PREFIX}$h" master "$MN_BR" up
        nsenter -t "$pid" --net -- ip addr add "${MN_NET}.$((10 + k))/24" dev "$MN_IF"
        nsenter -t "$pid" --net -- ip link set "$MN_IF" up
    done

    # munged, as the munge user, with a private socket in the run directory (ctl namespace).
    mkdir -p "$MN_RUN/munge"
    chown munge:munge "$MN_RUN/munge"
    chmod 0755 "$MN_RUN/munge" # munged insists that clients can reach its socket
    timeout 20 nsenter -t "$ctl" --mount --wd=/ -- runuser -u munge -- munged \
        --socket="$MN_RUN/munge/munge.socket" --pid-file="$MN_RUN/munge/munged.pid" \
        --log-file="$MN_RUN/munge/munged.log" --seed-file="$MN_RUN/munge/munged.seed" \
        --origin="${MN_NET}.1" </dev/null >"$MN_RUN/log/munged.out" 2>&1 ||
        { _mn_dump_logs; _mn_die "munged failed to start"; }
    _mn_wait 10 '[ -s "$1" ]' "$MN_RUN/munge/munged.pid" || true
    [[ -s $MN_RUN/munge/munged.pid ]] && _mn_record "$(cat "$MN_RUN/munge/munged.pid")" "$MN_RUN/pids/munged"
    _mn_wait 10 'munge -n -S "$1" | unmunge --numeric -S "$1"' "$MN_RUN/munge/munge.socket" ||
        { _mn_dump_logs; _mn_die "munged does not answer on $MN_RUN/munge/munge.socket"; }

    # slurmctld: root network namespace, ctl mount namespace.
    _mn_write_conf "$n" "$ctl_name"
    setsid nsenter -t "$ctl" --mount --wd=/ -- slurmctld -D -i -f "$MN_RUN/slurm.conf" \
        </dev/null >"$MN_RUN/log/slurmctld.out" 2>&1 &
    _mn_record $! "$MN_RUN/pids/slurmctld"
    disown
    _mn_wait 20 'nsenter -t "$1" --mount -- env SLURM_CONF="$2" timeout 5 scontrol ping | grep UP' \
        "$ctl" "$MN_RUN/slurm.conf" ||
        { _mn_dump_logs; _mn_die "slurmctld does not answer (scontrol ping)"; }

    # One slurmd per host, inside that host's namespaces (nsenter, not `ip netns exec`).
    for ((k = 1; k <= n; k++)); do
        h=${MN_HOST_PREFIX}$k
        pid=$(_mn_holder_pid "$h")
        setsid nsenter -t "$pid" --net --uts --mount --wd=/ -- \
            slurmd -D -N "$h" -f "$MN_RUN/slurm.conf" </dev/null >"$MN_RUN/log/slurmd-$h.out" 2>&1 &
        _mn_record $! "$MN_RUN/pids/slurmd-$h"
        disown
    done

    if ! _mn_wait "$MN_UP_TIMEOUT" \
        '[ "$(nsenter -t "$1" --mount -- env SLURM_CONF="$2" timeout 5 sinfo -h -N -o "%t" | grep -c "^idle$")" -ge "$3" ]' \
        "$ctl" "$MN_RUN/slurm.conf" "$n"; then
        _mn_log "nodes not idle after ${MN_UP_TIMEOUT}s"
        _mn_dump_logs
        _mn_die "cluster did not come up"
    fi
    trap - EXIT INT TERM
    echo "$n" >"$MN_RUN/nhosts"
    _mn_log "up: $n hosts idle in $(_mn_elapsed "$t0") s (slurm.conf: $MN_RUN/slurm.conf)"
}

_mn_up_failed() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ ${PAMIR_MN_KEEP_ON_FAIL:-0} == 1 ]]; then
        _mn_log "up failed (exit $rc); left in place (PAMIR_MN_KEEP_ON_FAIL=1): run 'down' when done"
    else
        _mn_log "up failed (exit $rc): tearing down"
        _mn_down
    fi
    exit "$rc"
}

_mn_elapsed() {
    local now=$EPOCHREALTIME
    awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# Kill every process of namespace NSID except the PIDs given; bounded wait for them to go.
_mn_sweep() {
    local nsid=$1 p keep victims=()
    shift
    for p in $(_mn_ns_pids "$nsid"); do
        for keep in "$@"; do [[ $p == "$keep" ]] && continue 2; done
        victims+=("$p")
    done
    [[ ${#victims[@]} -gt 0 ]] || return 0
    # (SIGKILL at once: slurmstepd ignores SIGTERM, and nothing in there needs a clean exit)
    kill -KILL "${victims[@]}" 2>/dev/null
    _mn_wait 3 '_mn_all_dead "$@"' "${victims[@]}"
}

_mn_down() {
    set +e
    local h nsid d pid p rc=0 any=0 ctl="" hosts=()
    if [[ -d $MN_RUN ]]; then
        any=1
        mapfile -t hosts < <(_mn_host_names)
        ctl=$(_mn_rec_alive "$MN_RUN/ctl/holder.pid")
        _mn_dbg "down: cancel jobs"
        # 0. cancel every job of this private cluster, so that sruns still running end cleanly.
        if [[ -n $ctl && -s $MN_RUN/slurm.conf ]] && _mn_rec_alive "$MN_RUN/pids/slurmctld" >/dev/null; then
            local jobs
            # (pending or running ones; completing ones finish by themselves)
            jobs=$(_mn_in_ctl timeout 5 squeue -h -t PD,CF,R,S -o %i 2>/dev/null | tr '\n' ' ')
            if [[ -n ${jobs// /} ]]; then
                # shellcheck disable=SC2086
                _mn_in_ctl timeout 5 scancel $jobs 2>/dev/null
                _mn_wait 5 '[ -z "$(nsenter -t "$1" --mount -- env SLURM_CONF="$2" timeout 5 squeue -h -t R,CG -o %i)" ]' \
                    "$ctl" "$MN_RUN/slurm.conf"
            fi
        fi
        _mn_dbg "down: slurmd"
        # 1. slurmd of every host.
        local files=()
        for h in "${hosts[@]}"; do files+=("$MN_RUN/pids/slurmd-$h"); done
        _mn_stop_recs 5 "${files[@]}"
        _mn_dbg "down: sweep"
        # 2. whatever else runs inside the hosts (slurmstepd, tasks), holders excepted.
        for h in "${hosts[@]}"; do
            nsid=$(_mn_nsid "$h") || continue
            pid=$(_mn_rec_alive "$MN_RUN/hosts/$h/holder.pid") || pid=-
            _mn_sweep "$nsid" "$pid"
        done
        _mn_dbg "down: slurmctld, munged"
        # 3. slurmctld, 4. munged.
        _mn_stop_rec "$MN_RUN/pids/slurmctld" 5
        _mn_stop_rec "$MN_RUN/pids/munged" 5
        if [[ -s $MN_RUN/munge/munged.pid && ! -s $MN_RUN/pids/munged ]]; then
            # munged started but its PID was not recorded yet (interrupted up): its own pid file.
            pid=$(cat "$MN_RUN/munge/munged.pid")
            [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == munged ]] && kill -TERM "$pid"
        fi
        _mn_dbg "down: holders"
        # Then whatever is left on the controller side (clients started through this script).
        # Not before: killing slurmctld's helper slurmscriptd first makes slurmctld hang on SIGTERM.
        if nsid=$(_mn_nsid ctl); then _mn_sweep "$nsid" "${ctl:--}"; fi
        # 5. holders, then nothing may be left in any of our namespaces.
        for h in "${hosts[@]}" ctl; do
            pid=$(_mn_rec_alive "$(_mn_dir "$h")/holder.pid") && kill -KILL "$pid" 2>/dev/null
        done
        for h in "${hosts[@]}" ctl; do
            nsid=$(_mn_nsid "$h") || continue
            if ! _mn_wait 5 '_mn_ns_empty "$1"' "$nsid"; then
                _mn_sweep "$nsid"
                _mn_ns_empty "$nsid" ||
                    { _mn_log "processes remain in $h's namespace: $(_mn_ns_pids "$nsid" | tr '\n' ' ')"; rc=1; }
            fi
        done
    fi
    _mn_dbg "down: links"
    # 6. veths (normally gone with their namespaces) and the bridge.
    for d in /sys/class/net/"${MN_VETH_PREFIX}${MN_HOST_PREFIX}"*; do
        [[ -e $d ]] || continue
        any=1
        ip link del "$(basename "$d")" 2>/dev/null
    done
    if ip link show "$MN_BR" >/dev/null 2>&1; then
        any=1
        ip link del "$MN_BR" || rc=1
    fi
    # 7. the run directory (no mount of ours lives there in the root namespace; make sure).
    if [[ -d $MN_RUN ]]; then
        if [[ $'\n'$(findmnt -rn -o TARGET) == *$'\n'"$MN_RUN/"* ]]; then
            _mn_log "mounts remain under $MN_RUN; not removing it"
            rc=1
        else
            rm -rf "$MN_RUN" || rc=1
        fi
    fi
    if ((any)); then
        if ((rc == 0)); then _mn_log "down: done"; else _mn_log "down: finished with problems"; fi
    fi
    return "$rc"
}

_mn_run() {
    local h=${1:-} pid
    [[ -n $h ]] || _mn_die "usage: run HOST -- CMD..."
    shift
    [[ ${1:-} == -- ]] && shift
    [[ $# -gt 0 ]] || _mn_die "usage: run HOST -- CMD..."
    pid=$(_mn_holder_pid "$h")
    # --wd keeps the working directory (entering a mount namespace would otherwise reset it to /).
    if [[ $h == ctl ]]; then
        exec nsenter -t "$pid" --mount --wd="$PWD" -- "$@"
    fi
    exec nsenter -t "$pid" --net --uts --mount --wd="$PWD" -- "$@"
}

# A Slurm client from the controller side.
_mn_slurm() {
    local pid
    [[ -s $MN_RUN/slurm.conf ]] || _mn_die "cluster is not up"
    pid=$(_mn_holder_pid ctl)
    exec nsenter -t "$pid" --mount --wd="$PWD" -- env SLURM_CONF="$MN_RUN/slurm.conf" "$@"
}

# Open MPI over the test network only: tcp btl and oob pinned to the private /24.
_mn_ompi_env_lines() {
    cat <<EOF
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader,tcp
export OMPI_MCA_btl_tcp_if_include=${MN_NET}.0/24
export OMPI_MCA_oob_tcp_if_include=${MN_NET}.0/24
EOF
}

_mn_status() {
    local h pid
    if [[ ! -d $MN_RUN ]]; then
        echo "down"
        return 0
    fi
    echo "run directory: $MN_RUN"
    echo "controller namespace: holder $(_mn_rec_alive "$MN_RUN/ctl/holder.pid" || echo '(dead)')"
    for h in $(_mn_host_names); do
        pid=$(_mn_rec_alive "$MN_RUN/hosts/$h/holder.pid") || pid="(dead)"
        echo "host $h: holder $pid, slurmd $(_mn_rec_alive "$MN_RUN/pids/slurmd-$h" || echo '(dead)')"
    done
    echo "slurmctld: $(_mn_rec_alive "$MN_RUN/pids/slurmctld" || echo '(dead)')"
    echo "munged: $(_mn_rec_alive "$MN_RUN/pids/munged" || echo '(dead)')"
    if [[ -s $MN_RUN/slurm.conf ]] && _mn_rec_alive "$MN_RUN/ctl/holder.pid" >/dev/null; then
        _mn_in_ctl timeout 5 sinfo -N || true
    fi
}

# "proc NAME PID STARTTIME" for every process of ours, "ns NAME NSID" for every namespace of ours.
_mn_snapshot() {
    local h f d
    [[ -d $MN_RUN ]] || return 0
    for f in "$MN_RUN"/pids/slurmd-* "$MN_RUN"/pids/slurmctld "$MN_RUN"/pids/munged; do
        [[ -s $f && $f != *.daemon.pid ]] && echo "proc $(basename "$f") $(cat "$f")"
    done
    for h in ctl $(_mn_host_names); do
        d=$(_mn_dir "$h")
        [[ -s $d/holder.pid ]] && echo "proc holder-$h $(cat "$d/holder.pid")"
        [[ -s $d/nsid ]] && echo "ns $h $(cat "$d/nsid")"
    done
    return 0
}

# Given a snapshot on stdin, print what is still there; exit status 1 if anything is.
_mn_leftovers() {
    local kind name a b left=0 now p
    while read -r kind name a b; do
        case $kind in
        proc)
            if now=$(_mn_starttime "$a") && [[ $b == 0 || $now == "$b" ]] && ! _mn_dead "$a"; then
                echo "process $name (pid $a) still alive"
                left=1
            fi
            ;;
        ns)
            p=$(_mn_ns_pids "$a" | tr '\n' ' ')
            if [[ -n $p ]]; then
                echo "namespace of $name ($a) still has processes: $p"
                left=1
            fi
            ;;
        esac
    done
    if ip link show "$MN_BR" >/dev/null 2>&1; then echo "bridge $MN_BR still exists"; left=1; fi
    for p in /sys/class/net/"${MN_VETH_PREFIX}${MN_HOST_PREFIX}"*; do
        [[ -e $p ]] && { echo "interface $(basename "$p") still exists"; left=1; }
    done
    [[ -e $MN_RUN ]] && { echo "run directory $MN_RUN still exists"; left=1; }
    return "$left"
}

# ---- public functions (for `source cluster.sh`) ----
mn_up() ( set -euo pipefail; _mn_up "$@" )
mn_down() ( set -uo pipefail; _mn_down )
mn_run() ( set -euo pipefail; _mn_run "$@" )
mn_srun() ( set -euo pipefail; _mn_slurm srun "$@" )
mn_slurm() ( set -euo pipefail; _mn_slurm "$@" )
mn_pids() ( set -euo pipefail; _mn_ns_pids "$(_mn_nsid "$1" || _mn_die "no host $1")" )
mn_hosts() ( set -euo pipefail; _mn_host_names )
mn_snapshot() ( set -euo pipefail; _mn_snapshot )
mn_leftovers() ( set -uo pipefail; _mn_leftovers )
mn_ompi_env() { eval "$(_mn_ompi_env_lines)"; }
mn_conf() { printf '%s\n' "$MN_RUN/slurm.conf"; }
mn_trap_down() {
    trap 'mn_down' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

_mn_main() {
    local cmd=${1:-}
    [[ $# -gt 0 ]] && shift
    case $cmd in
    up) _mn_up "$@" ;;
    down) _mn_need_root; _mn_down ;;
    run) _mn_run "$@" ;;
    srun | sinfo | squeue | scontrol | scancel | sbatch | salloc) _mn_slurm "$cmd" "$@" ;;
    pids) _mn_ns_pids "$(_mn_nsid "${1:?usage: pids HOST}" || _mn_die "no host $1")" ;;
    env)
        echo "# Slurm clients: through 'cluster.sh srun ...' (SLURM_CONF=$MN_RUN/slurm.conf, private name resolution)"
        _mn_ompi_env_lines
        ;;
    status) _mn_status ;;
    *)
        sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
        exit 2
        ;;
    esac
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    _mn_main "$@"
fi
