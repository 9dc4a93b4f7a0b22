//! The table files the prober may see: found in the directories of a `SyzygyPath`, each
//! checked (`tbcheck`) and held open, results remembered by the file's identity (so that the
//! same path sent again costs a `stat` per unchanged file), and linked by descriptor into a
//! private directory (mode 0700, a random name) that is all the prober is given.
//!
//! Invariant: a name in the private directory names the very bytes that were checked; what the
//! user's directories hold later is never read through it.

use super::super::tbcheck;
use super::lease;
use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tempfile::TempDir;

/// A table file that passed the check, held open: the crate reads this descriptor (through
/// a link in the private directory), never the name it was found under.
pub(super) struct Checked {
    pub(super) name: String,
    pub(super) file: File,
    /// A read lease is held on `file` (`lease`): no one cuts it in place unseen.
    pub(super) leased: bool,
}

/// Whether a file name is a Syzygy table (`KRvK.rtbw`, `KQvKR.rtbz`).
pub(super) fn is_table_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".rtbw")
        .or_else(|| name.strip_suffix(".rtbz"))
    else {
        return false;
    };
    let Some((white, black)) = stem.split_once('v') else {
        return false;
    };
    let side = |s: &str| {
        s.starts_with('K')
            && s[1..]
                .chars()
                .all(|c| matches!(c, 'Q' | 'R' | 'B' | 'N' | 'P'))
    };
    side(white) && side(black)
}

/// Pieces of the largest WDL table among these names (the crate's own count is 7 whatever
/// is on disk: it registers every material, file or not).
pub(super) fn largest_of(files: &[Checked]) -> u32 {
    files
        .iter()
        .filter_map(|c| c.name.strip_suffix(".rtbw"))
        .map(|stem| stem.chars().filter(|&c| c != 'v').count() as u32)
        .max()
        .unwrap_or(0)
}

/// What a `SyzygyPath` holds: the table files that passed `tbcheck`, the first found of each
/// name, and one message for each that did not.
pub(super) struct Scan {
    pub(super) good: Vec<Checked>,
    pub(super) bad: Vec<String>,
}

/// What identifies the bytes of a file already checked: a file replaced has another inode,
/// one rewritten in place another change time (`ctime`, which no user can set back).
#[cfg(unix)]
type Identity = (String, u64, u64, u64, i64, i64, i64, i64);

#[cfg(unix)]
fn identity(name: &str, meta: &std::fs::Metadata) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    Some((
        name.to_string(),
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    ))
}

#[cfg(not(unix))]
type Identity = ();

#[cfg(not(unix))]
fn identity(_: &str, _: &std::fs::Metadata) -> Option<Identity> {
    None
}

/// The files that passed the check, so that the same path sent again (or another path
/// holding the same files) costs a `stat` a file rather than a read.
static PASSED: Mutex<Option<HashSet<Identity>>> = Mutex::new(None);

fn passed_before(id: &Identity) -> bool {
    let guard = PASSED.lock().unwrap_or_else(|p| p.into_inner());
    guard.as_ref().is_some_and(|set| set.contains(id))
}

fn remember_passed(id: Identity) {
    let mut guard = PASSED.lock().unwrap_or_else(|p| p.into_inner());
    guard.get_or_insert_with(HashSet::new).insert(id);
}

/// Opens a table file without blocking (a FIFO named like a table) and without following
/// it anywhere but to what `stat` saw.
fn open_table(file: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(file)
}

/// Checks one table file; the open descriptor whose bytes were checked (with whether a read
/// lease guards it), or why it cannot be used.
fn check_file(name: &str, file: &Path) -> Result<(File, bool), String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err("it is a directory".into());
    }
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let handle = open_table(file).map_err(|e| format!("cannot read it: {e}"))?;
    // What was opened, not what the name showed a moment before.
    let meta = handle
        .metadata()
        .map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() == 0 {
        return Err("empty file".into());
    }
    // The lease first: from here on a writer waits until these bytes are let go.
    let leased = lease::take(&handle)?;
    let id = identity(name, &meta);
    if id.as_ref().is_some_and(passed_before) {
        return Ok((handle, leased));
    }
    // SAFETY: the file is mapped read-only and only read through the slice while the map
    // lives. With a lease, no other process can shorten this file (the same inode) before the
    // lease is let go; without one (see `lease`), a read could fault (SIGBUS) were it cut
    // during the check, the risk the prober takes later too.
    let map = unsafe { memmap2::Mmap::map(&handle) }.map_err(|e| format!("cannot map it: {e}"))?;
    tbcheck::check(name, &map).map_err(|e| e.0)?;
    if let Some(id) = id {
        remember_passed(id);
    }
    Ok((handle, leased))
}

/// Whether the bytes of a table file named `name` (`KQvKR.rtbw`) may be shown to the prober,
/// and why not (what `SyzygyPath` says of a bad file); for the fuzzer (fuzz/) and tests.
pub fn check_table(name: &str, bytes: &[u8]) -> Result<(), String> {
    tbcheck::check(name, bytes).map_err(|e| e.0)
}

/// Raises the soft limit on open files, where it is below `want` (one descriptor is held
/// for each table loaded); an open past the limit is a table left out with its error line.
#[cfg(unix)]
fn room_for_files(want: usize) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return;
    }
    let want = libc::rlim_t::try_from(want).unwrap_or(libc::rlim_t::MAX);
    if limit.rlim_cur >= want {
        return;
    }
    limit.rlim_cur = want.min(limit.rlim_max);
    // SAFETY: setrlimit reads only the struct it is given.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
}

#[cfg(not(unix))]
fn room_for_files(_: usize) {}

/// A table file found in a `SyzygyPath` directory, not checked yet.
pub(super) struct Found {
    name: String,
    path: PathBuf,
}

impl Found {
    /// Pieces of the table (`KQvKR`: 4).
    fn pieces(&self) -> usize {
        self.name.find('.').unwrap_or(0) - 1
    }
}

/// The table files of every directory of a `:`-separated path (the first found of each
/// name), fewest pieces first, then smallest: the order they are checked in, so that the
/// tables probed most, and reached by captures from the others, come first. `held`: the
/// descriptors the tables loaded now hold (the limit on open files is raised for all).
pub(super) fn find(path: &str, held: usize) -> Result<Vec<Found>, String> {
    let mut found: Vec<(Found, u64)> = Vec::new();
    for dir in path.split(':').filter(|d| !d.is_empty()) {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("SyzygyPath: cannot read directory '{dir}': {e}"))?;
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| is_table_name(n))
            .collect();
        names.sort();
        for name in names {
            if found.iter().any(|(f, _)| f.name == name) {
                continue;
            }
            let path = Path::new(dir).join(&name);
            let size = std::fs::metadata(&path).map_or(0, |m| m.len());
            found.push((Found { name, path }, size));
        }
    }
    if found.is_empty() {
        return Err(format!("SyzygyPath: no Syzygy table files in '{path}'"));
    }
    room_for_files(held + found.len() + 256);
    found.sort_by(|(a, size_a), (b, size_b)| {
        (a.pieces(), size_a, &a.name).cmp(&(b.pieces(), size_b, &b.name))
    });
    Ok(found.into_iter().map(|(f, _)| f).collect())
}

/// Checks found files in order while `go_on` says so (asked after each file): what
/// passed and what failed, and the files not reached.
pub(super) fn check_while(found: Vec<Found>, go_on: &dyn Fn() -> bool) -> (Scan, Vec<Found>) {
    let mut scan = Scan {
        good: Vec::new(),
        bad: Vec::new(),
    };
    let mut rest = found.into_iter();
    for f in rest.by_ref() {
        match check_file(&f.name, &f.path) {
            Ok((file, leased)) => scan.good.push(Checked {
                name: f.name,
                file,
                leased,
            }),
            Err(why) => scan.bad.push(format!(
                "SyzygyPath: table file '{}' not used: {why}",
                f.path.display()
            )),
        }
        if !go_on() {
            break;
        }
    }
    (scan, rest.collect())
}

/// Makes `link` name the very file `file` has open: a later change of what its name on disk
/// names is not seen through it.
#[cfg(unix)]
fn link_to(file: &File, link: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fds = if Path::new("/proc/self/fd").is_dir() {
        "/proc/self/fd"
    } else {
        "/dev/fd"
    };
    std::os::unix::fs::symlink(format!("{fds}/{}", file.as_raw_fd()), link)
}

/// Without descriptor links: a copy of the bytes of the open file.
#[cfg(not(unix))]
fn link_to(file: &File, link: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut from = file;
    from.seek(SeekFrom::Start(0))?;
    std::io::copy(&mut from, &mut File::create(link)?)?;
    Ok(())
}

/// A private directory (mode 0700, a name no one can guess or make first) of links to the
/// checked descriptors, for the prober to read.
pub(super) fn link_checked(good: &[Checked]) -> Result<TempDir, String> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("tabula-syzygy-");
    #[cfg(unix)]
    let private = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o700)
    };
    #[cfg(unix)]
    builder.permissions(private);
    let dir = builder
        .tempdir()
        .map_err(|e| format!("SyzygyPath: cannot make a private directory: {e}"))?;
    if dir.path().to_str().is_none_or(|p| p.contains([':', ';'])) {
        return Err(format!(
            "SyzygyPath: the temporary directory '{}' cannot be given to the prober (not UTF-8, or a ':' or ';' in it)",
            dir.path().display()
        ));
    }
    for c in good {
        link_to(&c.file, &dir.path().join(&c.name)).map_err(|e| {
            format!(
                "SyzygyPath: cannot link '{}' in '{}': {e}",
                c.name,
                dir.path().display()
            )
        })?;
    }
    Ok(dir)
}
