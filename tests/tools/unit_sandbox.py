#!/usr/bin/python3
"""Runs a command under the sandbox a systemd unit file asks for, where no
systemd manager runs (containers, CI): as close as this script can get to
what systemd would do for the settings that can stop the recorder from
working, so that a test can check the recorder still records under them.

    unit_sandbox.py UNIT --rw DIR -- COMMAND...

Applied from the unit's [Service] section:
  UMask, Nice, LimitMEMLOCK, NoNewPrivileges, CapabilityBoundingSet (the
  command starts as root with only these capabilities), MemoryDenyWriteExecute
  (prctl PR_SET_MDWE), SystemCallFilter/SystemCallErrorNumber/
  SystemCallArchitectures and RestrictAddressFamilies (one seccomp filter,
  groups expanded by `systemd-analyze syscall-filter`), ProtectSystem=strict
  with ProtectKernelTunables (every mount read-only but /dev and /proc, and
  /proc/sys read-only too, in a private mount namespace) with DIR writable,
  standing in for ReadWritePaths.
Not applied (they cannot take away anything the recorder needs, or need a
manager): IPAddressDeny (RestrictAddressFamilies already refuses IP sockets),
PrivateTmp, ProtectHome, PrivateDevices, ProtectClock, ProtectHostname,
RestrictNamespaces, RestrictRealtime, RestrictSUIDSGID, LockPersonality.
Prints what it applied to stderr, one line.  Needs root and python3-seccomp.
"""
import ctypes
import errno
import os
import socket
import subprocess
import sys

import seccomp

PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_MDWE = 65
PR_MDWE_REFUSE_EXEC_GAIN = 1
CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18

libc = ctypes.CDLL(None, use_errno=True)


def fail(msg):
    sys.exit(f"unit_sandbox: {msg}")


def service_settings(path):
    """The [Service] assignments, in order (a key may repeat)."""
    out, section = [], None
    for line in open(path):
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line:
            key, value = line.split("=", 1)
            out.append((key.strip(), value.strip()))
    return out


def expand(names, seen=None):
    """Syscall names, with @groups expanded through systemd-analyze."""
    seen = set() if seen is None else seen
    calls = set()
    for name in names:
        if not name.startswith("@"):
            calls.add(name)
            continue
        if name in seen:
            continue
        seen.add(name)
        text = subprocess.run(["systemd-analyze", "syscall-filter", name],
                              capture_output=True, text=True, check=True).stdout
        members = [l.strip() for l in text.splitlines()[1:]
                   if l.strip() and not l.strip().startswith("#")]
        calls |= expand(members, seen)
    return calls


def syscall_filter(settings):
    """(allowed syscalls or None, errno) from SystemCallFilter= lines, in systemd's order."""
    allowed, err = None, errno.EPERM
    for key, value in settings:
        if key == "SystemCallErrorNumber":
            err = getattr(errno, value)
        if key != "SystemCallFilter" or not value:
            continue
        names = expand(value.lstrip("~").split())
        if value.startswith("~"):
            if allowed is None:
                fail("a deny-list SystemCallFilter first is not supported")
            allowed -= names
        else:
            allowed = (allowed or set()) | names
    return allowed, err


def load_seccomp(settings):
    allowed, err = syscall_filter(settings)
    families = next((v.split() for k, v in settings if k == "RestrictAddressFamilies"), None)
    if allowed is None and families is None:
        return "no seccomp filter"
    f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(err) if allowed is not None
                              else seccomp.ALLOW)
    if allowed is not None:
        for name in sorted(allowed - {"socket"}):
            try:
                f.add_rule(seccomp.ALLOW, name)
            except (RuntimeError, ValueError, OSError):
                pass  # not a system call on this architecture
    if families is not None:
        wanted = [getattr(socket, fam) for fam in families]
        if allowed is None:
            fail("RestrictAddressFamilies without SystemCallFilter is not supported")
        if "socket" in allowed:
            for fam in wanted:
                f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, fam))
    elif allowed is not None and "socket" in allowed:
        f.add_rule(seccomp.ALLOW, "socket")
    f.load()
    return (f"seccomp: {len(allowed or ())} system calls allowed, socket() for "
            f"{' '.join(families or ['all'])}")


def mount_call(src, target, fstype, flags):
    if libc.mount(src, target.encode(), fstype, ctypes.c_ulong(flags), None):
        e = ctypes.get_errno()
        raise OSError(e, f"mount {target}: {os.strerror(e)}")


def protect_system(rw_dir):
    """ProtectSystem=strict and ProtectKernelTunables, DIR writable."""
    if libc.unshare(CLONE_NEWNS):
        fail(f"unshare(CLONE_NEWNS): {os.strerror(ctypes.get_errno())}")
    mount_call(None, "/", None, MS_REC | MS_PRIVATE)
    mount_call(rw_dir.encode(), rw_dir, None, MS_BIND)  # its own mount, to stay writable
    points = [l.split()[4] for l in open("/proc/self/mountinfo")]
    readonly = 0
    for p in points:
        if p == rw_dir or p.startswith(("/proc", "/dev")) and p != "/proc/sys":
            continue
        try:
            mount_call(None, p, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
            readonly += 1
        except OSError:
            pass  # gone, or stacked under another mount
    mount_call(b"/proc/sys", "/proc/sys", None, MS_BIND)
    mount_call(None, "/proc/sys", None, MS_BIND | MS_REMOUNT | MS_RDONLY)
    return f"{readonly + 1} mounts read-only, {rw_dir} writable"


CAPS = {"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
        "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SETPCAP": 8, "CAP_NET_ADMIN": 12,
        "CAP_IPC_LOCK": 14, "CAP_SYS_PTRACE": 19, "CAP_SYS_ADMIN": 21, "CAP_SYS_NICE": 23,
        "CAP_SYS_RESOURCE": 24, "CAP_PERFMON": 38, "CAP_BPF": 39}


def main():
    args = sys.argv[1:]
    if len(args) < 5 or args[1] != "--rw" or args[3] != "--":
        fail("usage: unit_sandbox.py UNIT --rw DIR -- COMMAND...")
    unit, rw_dir, command = args[0], os.path.realpath(args[2]), args[4:]
    settings = service_settings(unit)
    value = {k: v for k, v in settings}
    done = []
    if value.get("ProtectSystem") == "strict":
        done.append(protect_system(rw_dir))
    if "UMask" in value:
        os.umask(int(value["UMask"], 8))
        done.append(f"umask {value['UMask']}")
    if "Nice" in value:
        os.setpriority(os.PRIO_PROCESS, 0, int(value["Nice"]))
    if value.get("LimitMEMLOCK") == "infinity":
        import resource
        try:
            resource.setrlimit(resource.RLIMIT_MEMLOCK, (resource.RLIM_INFINITY,) * 2)
        except ValueError:  # no CAP_SYS_RESOURCE here (some containers)
            done.append("LimitMEMLOCK not applied")
    if "CapabilityBoundingSet" in value:
        keep = {CAPS[c] for c in value["CapabilityBoundingSet"].split()}
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
        for cap in range(last + 1):
            if cap not in keep and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0):
                fail(f"PR_CAPBSET_DROP {cap}: {os.strerror(ctypes.get_errno())}")
        done.append(f"capabilities {value['CapabilityBoundingSet']}")
    if value.get("MemoryDenyWriteExecute") == "yes":
        if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) == 0:
            done.append("MDWE")
    if value.get("NoNewPrivileges") == "yes":
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    done.append(load_seccomp(settings))
    print("unit_sandbox: " + "; ".join(done), file=sys.stderr, flush=True)
    # exec as root: the permitted set becomes the bounding set.
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
