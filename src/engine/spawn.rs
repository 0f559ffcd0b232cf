//! Starting an engine without copying the runner: the child is a `clone(CLONE_VM | CLONE_VFORK)`
//! of the launcher thread (see [`Launcher`]), as glibc's `posix_spawn` makes it, that sets what
//! `posix_spawn` cannot (the death signal) before its exec, and a `Child` that waits on the
//! kernel's pidfd.
//!
//! Why not `std::process::Command`: asking for `PR_SET_PDEATHSIG` needs a `pre_exec` hook, and
//! std then forks, copying the page tables of the whole runner for each of the thousands of
//! engines a run at `-concurrency 1024` starts (docs/design/BENCHMARKS.md §2). A child sharing
//! the runner's memory copies nothing; the launcher waits only until the child's exec has begun.

use std::ffi::{CString, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::sync::oneshot;

/// Stack of the cloned child until its exec: it only calls a handful of thin libc wrappers.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// What to start and how.
pub struct SpawnRequest<'a> {
    /// A path with a `/`, or a name looked up in `PATH` as `execvp` does.
    pub program: &'a Path,
    pub args: &'a [String],
    /// The child's working directory, if not the runner's.
    pub cwd: Option<&'a Path>,
    /// CPUs the child may run on (`-cpus`); empty = unchanged.
    pub cpus: &'a [usize],
}

/// A started child, leader of its own process group, with the runner's ends of its three pipes.
pub struct Started {
    pub child: Child,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// What to start, as owned C strings: built by the caller, carried out by the launcher thread.
struct Job {
    path: CString,
    args: Vec<CString>,
    cwd: Option<CString>,
    cpus: Option<libc::cpu_set_t>,
}

/// Where a job's outcome goes: the task that asked for it awaits the other end. Only the
/// receiver thread touches it: waking a task writes to its runtime's descriptors, which exist
/// in the shared table, not in the launcher's.
type Answer = oneshot::Sender<io::Result<Launched>>;

/// Everything the child needs, prepared by the launcher so that the child allocates nothing.
struct ChildPlan {
    path: *const libc::c_char,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: Option<*const libc::c_char>,
    /// The child's ends, moved onto 0, 1 and 2.
    stdio: [RawFd; 3],
    cpus: Option<libc::cpu_set_t>,
    /// The runner's pid: a child whose parent is already another process must not run on.
    parent: libc::pid_t,
    /// The errno of the step that failed in the child, 0 while all goes well.
    error: AtomicI32,
}

/// Starts `req` in a new process group, its stdio piped, `SIGKILL` as its death signal. Must be
/// called inside a tokio runtime (the pidfd is registered with its I/O driver). The start is
/// made by the launcher thread; the caller's thread goes on with other tasks meanwhile.
pub async fn spawn(req: &SpawnRequest<'_>) -> io::Result<Started> {
    let path = resolve_program(req.program)?;
    let args: Vec<CString> = std::iter::once(req.program.as_os_str().to_owned())
        .chain(req.args.iter().map(OsString::from))
        .map(c_string)
        .collect::<io::Result<_>>()?;
    let (answer, outcome) = oneshot::channel();
    let job = Job {
        path: c_string(path.into_os_string())?,
        args,
        cwd: req
            .cwd
            .map(|d| c_string(d.as_os_str().to_owned()))
            .transpose()?,
        cpus: cpu_set(req.cpus),
    };
    launcher()?.submit(job, answer)?;
    let Launched { pid, fds } = outcome
        .await
        .unwrap_or_else(|_| Err(io::Error::other("the engine launcher has stopped")))?;
    let [stdin, stdout, stderr, pidfd] = fds;
    let child = Child::new(pid, pidfd).inspect_err(|_| {
        // SAFETY: our own child, not yet reaped: kill and reap it rather than leave it running.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, &mut 0, 0);
        }
    })?;
    Ok(Started {
        child,
        stdin,
        stdout,
        stderr,
    })
}

/// A child the launcher started: its pid and the runner's ends (stdin, stdout, stderr, pidfd).
struct Launched {
    pid: libc::pid_t,
    fds: [OwnedFd; 4],
}

/// The launcher: one thread of the runner with a descriptor table of its own, nearly empty,
/// that makes the pipes and starts the children, and one thread in the shared table that
/// receives the runner's ends and hands them to the task that asked.
///
/// Why: an exec copies the descriptor table of the thread that cloned it and then closes every
/// close-on-exec entry, one by one. The runner at `-concurrency 1024` holds about 12,000
/// descriptors (pipes, pidfds and `/proc` files of its 2,048 engines), so each start from a
/// game slot's thread cost time in proportion to the whole run (`perf`: a quarter of the run in
/// `do_close_on_exec`). From the launcher's table a start copies and closes a handful. The
/// runner's ends come back over a socket (`SCM_RIGHTS`), the only way between two tables; the
/// game slots' threads never block on a start.
///
/// It is the process's one launcher, made on first use, like the kernel's own per-process
/// resources: engine starts from every slot, the check and the tests all go through it.
struct Launcher {
    /// Jobs to the launcher and, in the same order, their answers to the receiver: one lock
    /// for both sends so that the receiver pairs the launcher's messages with the right task.
    queues: Mutex<(mpsc::Sender<Job>, mpsc::Sender<Answer>)>,
}

/// Starts the launcher now rather than at the first engine start: the process then holds its
/// one socket from here on, and the launcher's table starts from a small copy.
pub fn start_launcher() -> io::Result<()> {
    launcher().map(|_| ())
}

fn launcher() -> io::Result<&'static Launcher> {
    static LAUNCHER: OnceLock<Result<Launcher, String>> = OnceLock::new();
    LAUNCHER
        .get_or_init(|| Launcher::start().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| io::Error::other(format!("cannot start the engine launcher: {e}")))
}

impl Launcher {
    fn start() -> io::Result<Launcher> {
        let (ours, theirs) = socket_pair()?;
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (answers, waiting) = mpsc::channel::<Answer>();
        let (ready_tx, ready) = mpsc::sync_channel::<io::Result<()>>(1);
        let their_fd = theirs.as_raw_fd();
        std::thread::Builder::new()
            .name("engine-launcher".into())
            .spawn(move || launcher_main(inbox, their_fd, ready_tx))?;
        // Its table has its own copy of the socket now; the shared table's copy can go.
        let started = ready
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the launcher thread ended")));
        drop(theirs);
        started?;
        std::thread::Builder::new()
            .name("engine-receiver".into())
            .spawn(move || receiver_main(ours, waiting))?;
        Ok(Launcher {
            queues: Mutex::new((jobs, answers)),
        })
    }

    fn submit(&self, job: Job, answer: Answer) -> io::Result<()> {
        let stopped = || io::Error::other("the engine launcher has stopped");
        let queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        queues.1.send(answer).map_err(|_| stopped())?;
        queues.0.send(job).map_err(|_| stopped())
    }
}

/// The launcher thread: leaves the shared descriptor table for a copy of its own, keeps only the
/// socket (and 0–2) in it, then starts one child per job until the runner exits and answers
/// each job on the socket, in order.
fn launcher_main(
    inbox: mpsc::Receiver<Job>,
    socket: RawFd,
    ready: mpsc::SyncSender<io::Result<()>>,
) {
    // SAFETY: this thread's own signal mask (every signal goes to the runner's other threads)
    // and descriptor table; the socket is the only descriptor it keeps above 2.
    let prepared = unsafe {
        let mut all = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigfillset(all.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), std::ptr::null_mut());
        if libc::unshare(libc::CLONE_FILES) != 0 {
            Err(io::Error::last_os_error())
        } else {
            if socket > 3 {
                libc::close_range(3, socket as u32 - 1, 0);
            }
            libc::close_range(socket.max(2) as u32 + 1, u32::MAX, 0);
            Ok(())
        }
    };
    let failed = prepared.is_err();
    let _ = ready.send(prepared);
    if failed {
        return;
    }
    // SAFETY: the socket's descriptor in this thread's own table, owned here from now on.
    let socket = unsafe { OwnedFd::from_raw_fd(socket) };
    // One stack for every child: they run one at a time, each until its exec. Left
    // uninitialised, so only the pages a child touches become resident (zeroed, all 16 were).
    let mut stack = Box::<[u8]>::new_uninit_slice(CHILD_STACK_BYTES);
    while let Ok(job) = inbox.recv() {
        let outcome = run_job(&job, &mut stack);
        let pid = outcome.as_ref().map(|l| l.pid).ok();
        if send_outcome(&socket, outcome).is_err() {
            if let Some(pid) = pid {
                // Nobody will own this child: end it. The closed socket tells the receiver.
                // SAFETY: our own child, not yet reaped.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut 0, 0);
                }
            }
            return;
        }
    }
}

/// The receiver thread: turns each message of the launcher into the asking task's answer. A
/// task that stopped waiting (cancelled) leaves a child nobody owns: it is killed and reaped.
fn receiver_main(socket: OwnedFd, waiting: mpsc::Receiver<Answer>) {
    while let Some(outcome) = receive_outcome(&socket) {
        let Ok(answer) = waiting.recv() else {
            return;
        };
        if let Err(Ok(orphan)) = answer.send(outcome) {
            // SAFETY: the child's own group (made before its exec), then the child itself.
            unsafe {
                libc::killpg(orphan.pid, libc::SIGKILL);
                libc::waitpid(orphan.pid, &mut 0, 0);
            }
        }
    }
}

/// Makes the pipes and starts the child of `job`: the runner's four ends, or the error.
fn run_job(job: &Job, stack: &mut [MaybeUninit<u8>]) -> io::Result<Launched> {
    // The environment as it is now, read here rather than queued with the job: at
    // -concurrency 1024 two thousand starts wait at once, and their copies added up to MiBs.
    let env: Vec<CString> = std::env::vars_os()
        .map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            c_string(OsString::from_vec(kv))
        })
        .collect::<io::Result<_>>()?;
    let (stdin_child, stdin) = pipe()?;
    let (stdout, stdout_child) = pipe()?;
    let (stderr, stderr_child) = pipe()?;
    let plan = ChildPlan {
        path: job.path.as_ptr(),
        argv: null_terminated(&job.args),
        envp: null_terminated(&env),
        cwd: job.cwd.as_ref().map(|c| c.as_ptr()),
        stdio: [
            stdin_child.as_raw_fd(),
            stdout_child.as_raw_fd(),
            stderr_child.as_raw_fd(),
        ],
        cpus: job.cpus,
        // SAFETY: getpid(2) cannot fail.
        parent: unsafe { libc::getpid() },
        error: AtomicI32::new(0),
    };
    let (pid, pidfd) = clone_and_exec(&plan, stack)?;
    let error = plan.error.load(Ordering::SeqCst);
    if error != 0 {
        // It exited before its exec: reap it so no zombie stays, and say why.
        // SAFETY: our own child, exiting.
        unsafe { libc::waitpid(pid, &mut 0, 0) };
        return Err(io::Error::from_raw_os_error(error));
    }
    Ok(Launched {
        pid,
        fds: [stdin, stdout, stderr, pidfd],
    })
}

/// A job's outcome to the receiver: `[pid, errno]` as data and, for a started child, its four
/// descriptors as `SCM_RIGHTS`.
fn send_outcome(socket: &OwnedFd, outcome: io::Result<Launched>) -> io::Result<()> {
    let (head, fds) = match &outcome {
        Ok(l) => ([l.pid, 0], Some(l.fds.each_ref().map(AsRawFd::as_raw_fd))),
        Err(e) => ([0, e.raw_os_error().unwrap_or(libc::EIO)], None),
    };
    let mut iov = libc::iovec {
        iov_base: head.as_ptr() as *mut libc::c_void,
        iov_len: std::mem::size_of_val(&head),
    };
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr pointing at live buffers; CMSG_* stay within `control`, which
    // has room for the header and four descriptors.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if let Some(fds) = &fds {
            let bytes = std::mem::size_of_val(fds) as u32;
            msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = libc::CMSG_SPACE(bytes) as usize;
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(bytes) as usize;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, 4);
        }
        if libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // The launcher's copies close here; the runner's arrived with the message.
    drop(outcome);
    Ok(())
}

/// The next outcome from the launcher; `None` once the launcher is gone.
fn receive_outcome(socket: &OwnedFd) -> Option<io::Result<Launched>> {
    let mut head = [0i32; 2];
    let mut iov = libc::iovec {
        iov_base: head.as_mut_ptr() as *mut libc::c_void,
        iov_len: std::mem::size_of_val(&head),
    };
    let mut control = [0u64; 8];
    let mut fds: [RawFd; 4] = [-1; 4];
    // SAFETY: as in send_outcome; the kernel fills at most `control`'s size.
    let n = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&control);
        let n = loop {
            let n = libc::recvmsg(socket.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break n;
            }
        };
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if n > 0 && !cmsg.is_null() && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
            let data = libc::CMSG_DATA(cmsg) as *const RawFd;
            std::ptr::copy_nonoverlapping(data, fds.as_mut_ptr(), 4);
        }
        n
    };
    if n <= 0 {
        return None;
    }
    if head[1] != 0 {
        return Some(Err(io::Error::from_raw_os_error(head[1])));
    }
    if fds.contains(&-1) {
        return Some(Err(io::Error::other(
            "the engine launcher sent no descriptors",
        )));
    }
    // SAFETY: four new descriptors received with the message, owned by nobody else.
    let fds = fds.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
    Some(Ok(Launched { pid: head[0], fds }))
}

fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair(2) fills two new descriptors on success.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The clone itself: returns the child's pid and pidfd once it has exec'd or exited.
fn clone_and_exec(
    plan: &ChildPlan,
    stack: &mut [MaybeUninit<u8>],
) -> io::Result<(libc::pid_t, OwnedFd)> {
    // The stack grows down from its end, which must be 16-byte aligned.
    let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
    let mut pidfd: libc::c_int = -1;
    // SAFETY: every signal is blocked around the clone so that no handler of the runner runs on
    // the child's stack in the shared memory before the child has reset the dispositions; the
    // child only reads `plan` (alive until clone returns: CLONE_VFORK suspends this thread until
    // the child's exec or exit) and makes async-signal-safe calls.
    let pid = unsafe {
        let mut all = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigfillset(all.as_mut_ptr());
        let mut old = MaybeUninit::<libc::sigset_t>::uninit();
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), old.as_mut_ptr());
        let pid = libc::clone(
            child_main,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD,
            plan as *const ChildPlan as *mut libc::c_void,
            &mut pidfd as *mut libc::c_int,
        );
        let err = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, old.as_ptr(), std::ptr::null_mut());
        if pid < 0 {
            return Err(err);
        }
        pid
    };
    // SAFETY: CLONE_PIDFD stored a new descriptor that nothing else owns.
    Ok((pid, unsafe { OwnedFd::from_raw_fd(pidfd) }))
}

/// The child, on its own stack in the runner's memory until its exec: only raw system calls
/// through libc, no allocation, no lock. On failure it records errno and exits with 127.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `ChildPlan`, alive while the parent is suspended.
    let plan = unsafe { &*(arg as *const ChildPlan) };
    // SAFETY: each call below is async-signal-safe and touches only this process's state or
    // the prepared plan.
    unsafe {
        reset_signals();
        // The death signal comes when the parent *thread* ends: the launcher thread, which
        // never ends before the process does.
        let ok = libc::setpgid(0, 0) == 0
            && libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) == 0;
        if !ok {
            return fail(plan);
        }
        // The runner died between the clone and the death signal: nobody would kill us later.
        if libc::getppid() != plan.parent {
            libc::_exit(127);
        }
        if let Some(set) = &plan.cpus {
            if libc::sched_setaffinity(0, std::mem::size_of_val(set), set) != 0 {
                return fail(plan);
            }
        }
        for (target, &fd) in plan.stdio.iter().enumerate() {
            // The pipes were made above 2, so no dup2 overwrites a descriptor still to be moved.
            if libc::dup2(fd, target as libc::c_int) < 0 {
                return fail(plan);
            }
        }
        if let Some(dir) = plan.cwd {
            if libc::chdir(dir) != 0 {
                return fail(plan);
            }
        }
        let mut empty = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(empty.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, empty.as_ptr(), std::ptr::null_mut());
        libc::execve(plan.path, plan.argv.as_ptr(), plan.envp.as_ptr());
        fail(plan)
    }
}

/// Records errno for the parent and exits the child.
///
/// # Safety
/// Only in the cloned child.
unsafe fn fail(plan: &ChildPlan) -> libc::c_int {
    let errno = *libc::__errno_location();
    plan.error.store(errno.max(1), Ordering::SeqCst);
    libc::_exit(127)
}

/// Gives the child default signal dispositions: a handler of the runner must never run in the
/// child (it would run on the runner's memory), and ignoring SIGPIPE or SIGXFSZ is the runner's
/// choice, not the engine's (std's spawn resets SIGPIPE likewise).
///
/// # Safety
/// Only in the cloned child, with every signal blocked.
unsafe fn reset_signals() {
    let mut default: libc::sigaction = std::mem::zeroed();
    default.sa_sigaction = libc::SIG_DFL;
    // 64 signals on Linux; glibc's two internal ones refuse sigaction and are skipped.
    for sig in 1..=64 {
        if sig == libc::SIGKILL || sig == libc::SIGSTOP {
            continue;
        }
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
            continue;
        }
        let ignored_by_choice =
            old.sa_sigaction == libc::SIG_IGN && sig != libc::SIGPIPE && sig != libc::SIGXFSZ;
        if old.sa_sigaction != libc::SIG_DFL && !ignored_by_choice {
            libc::sigaction(sig, &default, std::ptr::null_mut());
        }
    }
}

/// `execvp`'s lookup, done before the clone: a name without `/` is searched in `PATH`.
fn resolve_program(program: &Path) -> io::Result<PathBuf> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return Ok(program.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin"));
    let mut denied = false;
    for dir in std::env::split_paths(&path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(program);
        let Ok(meta) = std::fs::metadata(&candidate) else {
            continue;
        };
        let c = c_string(candidate.clone().into_os_string())?;
        // SAFETY: access(2) on a valid C string.
        if meta.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0 {
            return Ok(candidate);
        }
        denied = true;
    }
    Err(io::Error::from_raw_os_error(if denied {
        libc::EACCES
    } else {
        libc::ENOENT
    }))
}

fn c_string(s: impl Into<OsString>) -> io::Result<CString> {
    CString::new(s.into().into_vec()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a command word contains a NUL byte",
        )
    })
}

fn null_terminated(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// The affinity mask of `cpus` (`None` for none: not pinned).
pub fn cpu_set(cpus: &[usize]) -> Option<libc::cpu_set_t> {
    if cpus.is_empty() {
        return None;
    }
    // SAFETY: cpu_set_t is plain bits; CPU_SET ignores numbers past its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        Some(set)
    }
}

/// A close-on-exec pipe as (read end, write end), both above 2 so that the child's moves onto
/// stdin, stdout and stderr cannot overwrite one another (the runner's own 0–2 may be closed).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2(2) fills two new descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned here.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(r)?, above_stdio(w)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor (>= 3) that we then own.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: see above.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

/// A child process waited on through its pidfd. Dropped before it was reaped, it is killed and
/// reaped in the background, so no zombie outlives the handle.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    /// `None` only while being dropped.
    pidfd: Option<AsyncFd<OwnedFd>>,
    status: Option<ExitStatus>,
    /// How many times `waitpid` was asked (a test's count: waiting must not ask on every poll).
    #[cfg(test)]
    waitpid_calls: u32,
}

impl Child {
    fn new(pid: libc::pid_t, pidfd: OwnedFd) -> io::Result<Self> {
        // SAFETY: an OwnedFd keeps its one descriptor open until dropped with the AsyncFd.
        let pidfd = unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) }
            .map_err(io::Error::from)?;
        Ok(Child {
            pid,
            pidfd: Some(pidfd),
            status: None,
            #[cfg(test)]
            waitpid_calls: 0,
        })
    }

    /// The pid the child was started with, reaped or not (its process group's id too).
    pub fn started_pid(&self) -> u32 {
        self.pid as u32
    }

    /// The pid, until the child has been reaped.
    pub fn id(&self) -> Option<u32> {
        self.status.is_none().then_some(self.pid as u32)
    }

    /// Reaps the child if it has exited.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        #[cfg(test)]
        {
            self.waitpid_calls += 1;
        }
        self.status = reap(self.pid)?;
        Ok(self.status)
    }

    /// Waits for the child to exit. Cancel-safe. `waitpid` is asked only once the pidfd says
    /// the child has exited: a session waits on its engine beside every read of a line, and a
    /// system call per poll was one in three of a slot's per move (issue 37).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.status {
                return Ok(status);
            }
            let Some(pidfd) = &self.pidfd else {
                return Err(io::Error::other("child handle already released"));
            };
            // The pidfd turns readable once the process has exited (at once if it already has:
            // epoll reports a descriptor that is ready when registered).
            let mut ready = pidfd.readable().await?;
            #[cfg(test)]
            {
                self.waitpid_calls += 1;
            }
            match reap(self.pid)? {
                Some(status) => {
                    drop(ready);
                    self.status = Some(status);
                    return Ok(status);
                }
                None => ready.clear_ready(),
            }
        }
    }

    /// Sends SIGKILL to the child (not its group), unless it was reaped already.
    pub fn start_kill(&mut self) -> io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        let Some(pidfd) = &self.pidfd else {
            return Ok(());
        };
        // SAFETY: pidfd_send_signal(2) on our pidfd: it cannot reach a reused pid.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.get_ref().as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// `waitpid(pid, WNOHANG)`: the exit status if the child has exited, reaping it.
fn reap(pid: libc::pid_t) -> io::Result<Option<ExitStatus>> {
    let mut raw = 0;
    // SAFETY: waitpid(2) on our own, not yet reaped child.
    match unsafe { libc::waitpid(pid, &mut raw, libc::WNOHANG) } {
        0 => Ok(None),
        p if p == pid => Ok(Some(ExitStatus::from_raw(raw))),
        _ => Err(io::Error::last_os_error()),
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        let _ = self.start_kill();
        if matches!(self.try_wait(), Ok(Some(_))) {
            return;
        }
        let Some(pidfd) = self.pidfd.take() else {
            return;
        };
        // Dying takes the kernel a moment (a big engine's memory is freed first): reap it
        // without blocking the caller, on the runtime if there is one.
        let pid = self.pid;
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(async move {
                    while let Ok(mut ready) = pidfd.readable().await {
                        // SAFETY: waitpid(2) on our own, not yet reaped child.
                        if unsafe { libc::waitpid(pid, &mut 0, libc::WNOHANG) } != 0 {
                            return;
                        }
                        ready.clear_ready();
                    }
                });
            }
            Err(_) => {
                let pidfd = pidfd.into_inner();
                std::thread::spawn(move || {
                    // SAFETY: as above; blocking is fine on this thread of its own.
                    unsafe { libc::waitpid(pid, &mut 0, 0) };
                    drop(pidfd);
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::unix::pipe;

    fn request<'a>(program: &'a Path, args: &'a [String]) -> SpawnRequest<'a> {
        SpawnRequest {
            program,
            args,
            cwd: None,
            cpus: &[],
        }
    }

    /// Runs `sh -c SCRIPT` with the given directory and CPUs and returns its stdout.
    async fn sh_output(script: &str, cwd: Option<&Path>, cpus: &[usize]) -> String {
        let args = ["-c".to_string(), script.to_string()];
        let started = spawn(&SpawnRequest {
            program: Path::new("sh"),
            args: &args,
            cwd,
            cpus,
        })
        .await
        .expect("sh starts");
        let mut child = started.child;
        let mut out = String::new();
        pipe::Receiver::from_owned_fd(started.stdout)
            .unwrap()
            .read_to_string(&mut out)
            .await
            .unwrap();
        assert!(child.wait().await.unwrap().success());
        out
    }

    /// No child of ours that failed its exec is left unreaped: a zombie still named after the
    /// launcher (a child that exec'd is named after its program). Other tests of this process
    /// start children meanwhile: one between its clone and its exec is not a zombie, and one that
    /// failed is reaped by the launcher at once, so a zombie that stays is the one looked for.
    fn no_failed_child_left() -> bool {
        let me = std::process::id().to_string();
        let zombies = || {
            let entries = std::fs::read_dir("/proc").unwrap();
            entries.flatten().any(|e| {
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let Some((comm, rest)) = stat.split_once(") ") else {
                    return false;
                };
                let mut fields = rest.split_whitespace();
                let (state, ppid) = (fields.next(), fields.next());
                comm.ends_with("(engine-launcher") && state == Some("Z") && ppid == Some(&me)
            })
        };
        let t = std::time::Instant::now();
        while zombies() {
            if t.elapsed() > std::time::Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        true
    }

    #[tokio::test]
    async fn a_missing_program_is_enoent_and_leaves_no_child() {
        let err = spawn(&request(Path::new("/nonexistent/pbrain-x"), &[]))
            .await
            .err()
            .unwrap();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
        let err = spawn(&request(Path::new("pbrain-not-on-path-xyz"), &[]))
            .await
            .err()
            .unwrap();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
        assert!(no_failed_child_left());
    }

    #[tokio::test]
    async fn a_file_that_is_not_executable_is_eacces_from_the_exec() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pbrain-plain");
        std::fs::write(&file, "not a program").unwrap();
        let err = spawn(&request(&file, &[])).await.err().unwrap();
        assert_eq!(err.raw_os_error(), Some(libc::EACCES));
        assert!(no_failed_child_left(), "the failed child was reaped");
    }

    #[tokio::test]
    async fn a_directory_that_does_not_exist_fails_the_start() {
        let args = ["-c".to_string(), "true".to_string()];
        let err = spawn(&SpawnRequest {
            program: Path::new("/bin/sh"),
            args: &args,
            cwd: Some(Path::new("/nonexistent-dir-for-spawn")),
            cpus: &[],
        })
        .await
        .err()
        .unwrap();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
    }

    #[tokio::test]
    async fn waiting_on_a_live_child_asks_waitpid_only_once_it_has_exited() {
        let args = ["-c".to_string(), "read x; exit 4".into()];
        let started = spawn(&request(Path::new("sh"), &args)).await.unwrap();
        let mut child = started.child;
        // A session polls its wait beside every line it reads: each poll must stay in the runtime.
        for _ in 0..50 {
            let waited =
                tokio::time::timeout(std::time::Duration::from_millis(1), child.wait()).await;
            assert!(waited.is_err(), "the child is still reading");
        }
        assert_eq!(
            child.waitpid_calls, 0,
            "no waitpid while the pidfd is not readable"
        );
        drop(started.stdin);
        assert_eq!(child.wait().await.unwrap().code(), Some(4));
        assert!(child.waitpid_calls >= 1);
    }

    #[tokio::test]
    async fn stdio_is_piped_both_ways_and_the_status_is_kept() {
        let args = [
            "-c".to_string(),
            "read x; echo \"got $x\"; echo oops >&2; exit 3".into(),
        ];
        let started = spawn(&request(Path::new("sh"), &args)).await.unwrap();
        let mut child = started.child;
        let mut stdin = pipe::Sender::from_owned_fd(started.stdin).unwrap();
        stdin.write_all(b"7,7\n").await.unwrap();
        let (mut out, mut err) = (String::new(), String::new());
        let mut stdout = pipe::Receiver::from_owned_fd(started.stdout).unwrap();
        stdout.read_to_string(&mut out).await.unwrap();
        let mut stderr = pipe::Receiver::from_owned_fd(started.stderr).unwrap();
        stderr.read_to_string(&mut err).await.unwrap();
        assert_eq!((out.as_str(), err.as_str()), ("got 7,7\n", "oops\n"));
        let status = child.wait().await.unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(child.id(), None, "reaped");
        // Waiting again returns the same status at once.
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
    }

    #[tokio::test]
    async fn the_child_leads_its_own_group_in_the_asked_directory_and_cpus() {
        let dir = tempfile::tempdir().unwrap();
        let out = sh_output(
            "echo $$; ps -o pgid= -p $$ 2>/dev/null || cut -d' ' -f5 /proc/$$/stat; pwd -P; \
             grep Cpus_allowed_list /proc/self/status",
            Some(dir.path()),
            &[0],
        )
        .await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0].trim(), lines[1].trim(), "pid = pgid: {out}");
        assert_eq!(
            Path::new(lines[2]),
            dir.path().canonicalize().unwrap().as_path()
        );
        assert!(lines[3].ends_with("\t0"), "{out}");
    }

    /// Bit of signal `sig` in a /proc status mask such as `SigIgn:\t0000000000001000`.
    fn mask_has(out: &str, field: &str, sig: i32) -> bool {
        let line = out.lines().find(|l| l.starts_with(field)).unwrap();
        let hex = line.split_whitespace().nth(1).unwrap();
        u64::from_str_radix(hex, 16).unwrap() & (1 << (sig - 1)) != 0
    }

    #[tokio::test]
    async fn the_child_gets_default_signals_but_what_was_ignored_on_purpose() {
        // SAFETY: setting dispositions and this thread's mask in a test process of its own.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
            libc::signal(libc::SIGUSR2, libc::SIG_IGN);
            let mut set = MaybeUninit::<libc::sigset_t>::uninit();
            libc::sigemptyset(set.as_mut_ptr());
            libc::sigaddset(set.as_mut_ptr(), libc::SIGUSR1);
            libc::pthread_sigmask(libc::SIG_BLOCK, set.as_ptr(), std::ptr::null_mut());
        }
        let out = sh_output("grep -E '^Sig(Ign|Blk)' /proc/self/status", None, &[]).await;
        assert!(!mask_has(&out, "SigIgn", libc::SIGPIPE), "{out}");
        assert!(mask_has(&out, "SigIgn", libc::SIGUSR2), "{out}");
        assert!(!mask_has(&out, "SigBlk", libc::SIGUSR1), "{out}");
    }

    #[tokio::test]
    async fn the_child_inherits_no_descriptor_of_the_runner() {
        // Start the launcher first: what the runner opens later must not reach engines either,
        // even without close-on-exec (a library's descriptor, say).
        sh_output("true", None, &[]).await;
        let path = std::ffi::CString::new("/dev/null").unwrap();
        // SAFETY: open(2) without O_CLOEXEC on purpose; closed below.
        let stray = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY) };
        assert!(stray > 2);
        let out = sh_output("ls /proc/$$/fd", None, &[]).await;
        // SAFETY: the descriptor opened above.
        unsafe { libc::close(stray) };
        let mut fds: Vec<i32> = out.lines().map(|l| l.parse().unwrap()).collect();
        fds.sort();
        assert_eq!(fds, vec![0, 1, 2], "{out}");
    }

    #[tokio::test]
    async fn a_dropped_child_is_killed_and_reaped() {
        let args = ["1000".to_string()];
        let started = spawn(&request(Path::new("sleep"), &args)).await.unwrap();
        let pid = started.child.id().unwrap();
        drop(started);
        // Killed and reaped: its /proc entry goes (a zombie's would stay).
        for _ in 0..1000 {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("child {pid} still there 10 s after the drop");
    }
}
