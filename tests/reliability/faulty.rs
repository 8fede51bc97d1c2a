//! A fault-injecting redb storage backend: a simulated disk that keeps what the last completed
//! sync made durable apart from the writes since, and fails, fills up, or loses power at a
//! chosen I/O operation.
//!
//! The model follows redb's own assumptions about media (`docs/design.md`, "Assumptions about
//! underlying media"): a write may reach the disk before its sync completes or not at all;
//! bytes outside a write's range never change; a completed `sync_data` makes every earlier
//! write and length change durable. A power cut keeps the durable bytes and then, per mode,
//! none of the unsynced operations, all of them, or a random subsequence of them with writes
//! torn at sector or byte boundaries.

use crate::scale::Rng;
use docsuggest_store::BackendFactory;
use redb::StorageBackend;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

/// What goes wrong, from the `at`-th I/O operation (reads, writes, length changes and syncs,
/// counted from 1) on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Operation `at` fails with an I/O error; later ones succeed.
    IoOnce,
    /// Operation `at` and every later one fail.
    IoPersistent,
    /// From operation `at` on, nothing may grow the storage: a write past the end or a longer
    /// length fails with "storage full".
    DiskFull,
    /// Power is lost just before operation `at`: it and everything later fail, and the disk
    /// keeps its durable bytes plus what the cut applies of the unsynced operations.
    PowerCut(Cut),
}

/// What a power cut does with the operations issued since the last completed sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// None of them reached the disk.
    Drop,
    /// All of them did (the sync was about to complete).
    Apply,
    /// A random subsequence did, some writes only in part (seeded).
    Tear(u64),
}

impl Fault {
    /// The mode's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Fault::IoOnce => "io-error-once",
            Fault::IoPersistent => "io-error-persistent",
            Fault::DiskFull => "disk-full",
            Fault::PowerCut(Cut::Drop) => "power-cut-drop",
            Fault::PowerCut(Cut::Apply) => "power-cut-apply",
            Fault::PowerCut(Cut::Tear(_)) => "power-cut-tear",
        }
    }
}

#[derive(Clone, Debug)]
enum Unsynced {
    Write { offset: u64, data: Vec<u8> },
    SetLen(u64),
}

#[derive(Debug, Default)]
struct State {
    /// What reads see: the durable bytes with every unsynced operation applied.
    live: Vec<u8>,
    /// What a completed sync made durable.
    durable: Vec<u8>,
    /// Operations since the last completed sync, in order.
    unsynced: Vec<Unsynced>,
    /// I/O operations so far.
    ops: u64,
    fault: Option<(Fault, u64)>,
    /// Whether the fault has fired.
    fired: bool,
    /// The disk left by a power cut.
    after_cut: Option<Vec<u8>>,
}

/// A simulated disk; every [`Disk::backend`] is a handle on it.
#[derive(Clone, Debug, Default)]
pub struct Disk(Arc<Mutex<State>>);

fn lock(disk: &Disk) -> MutexGuard<'_, State> {
    // A panic while the lock was held is already a test failure; keep reporting it.
    disk.0.lock().unwrap_or_else(|e| e.into_inner())
}

impl Disk {
    /// An empty disk.
    pub fn new() -> Disk {
        Disk::default()
    }

    /// A disk holding `image`, all of it durable.
    pub fn from_image(image: &[u8]) -> Disk {
        let disk = Disk::default();
        {
            let mut s = lock(&disk);
            s.live = image.to_vec();
            s.durable = image.to_vec();
        }
        disk
    }

    /// Arms `fault` at operation `at` (counted from now on).
    pub fn arm(&self, fault: Fault, at: u64) {
        let mut s = lock(self);
        let base = s.ops;
        s.fault = Some((fault, base + at));
        s.fired = false;
    }

    /// Clears the armed fault: the error passed, the space was freed.
    pub fn disarm(&self) {
        let mut s = lock(self);
        s.fault = None;
    }

    /// I/O operations so far.
    pub fn ops(&self) -> u64 {
        lock(self).ops
    }

    /// Whether the armed fault has fired.
    pub fn fired(&self) -> bool {
        lock(self).fired
    }

    /// What a process restarting now would read: after a power cut, the disk it left; else
    /// every byte written (the kernel still has them).
    pub fn live_image(&self) -> Vec<u8> {
        let s = lock(self);
        s.after_cut.clone().unwrap_or_else(|| s.live.clone())
    }

    /// What a power cut now would leave if no unsynced operation reached the disk.
    pub fn durable_image(&self) -> Vec<u8> {
        let s = lock(self);
        s.after_cut.clone().unwrap_or_else(|| s.durable.clone())
    }

    /// The disk a process restarting now (without a power cut) finds: the same bytes, with
    /// the unsynced ones still unsynced, and no fault armed.
    pub fn restarted(&self) -> Disk {
        let s = lock(self);
        let state = match &s.after_cut {
            Some(image) => State {
                live: image.clone(),
                durable: image.clone(),
                ..State::default()
            },
            None => State {
                live: s.live.clone(),
                durable: s.durable.clone(),
                unsynced: s.unsynced.clone(),
                ..State::default()
            },
        };
        Disk(Arc::new(Mutex::new(state)))
    }

    /// A factory of handles on this disk, for `StoreOptions::backend`.
    pub fn factory(&self) -> BackendFactory {
        let disk = self.clone();
        BackendFactory::new(move || Ok(Box::new(Handle(disk.clone())) as Box<dyn StorageBackend>))
    }
}

fn failed(what: &str) -> io::Error {
    io::Error::other(format!("simulated I/O error ({what})"))
}

fn gone() -> io::Error {
    io::Error::other("simulated power loss: the device is gone")
}

/// Applies one operation to an image.
fn apply(image: &mut Vec<u8>, op: &Unsynced) {
    match op {
        Unsynced::Write { offset, data } => write_at(image, *offset, data),
        Unsynced::SetLen(len) => image.resize(to_usize(*len), 0),
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("simulated disks fit in memory")
}

fn write_at(image: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let start = to_usize(offset);
    let end = start + data.len();
    if image.len() < end {
        image.resize(end, 0);
    }
    image[start..end].copy_from_slice(data);
}

/// The image a power cut leaves.
fn cut(durable: &[u8], unsynced: &[Unsynced], how: Cut) -> Vec<u8> {
    let mut image = durable.to_vec();
    match how {
        Cut::Drop => {}
        Cut::Apply => unsynced.iter().for_each(|op| apply(&mut image, op)),
        Cut::Tear(seed) => {
            let mut rng = Rng::new(seed);
            for op in unsynced {
                match rng.below(4) {
                    0 => {}
                    1 => apply(&mut image, op),
                    _ => match op {
                        Unsynced::SetLen(_) => {
                            if rng.chance(1, 2) {
                                apply(&mut image, op);
                            }
                        }
                        Unsynced::Write { offset, data } => {
                            tear(&mut image, *offset, data, &mut rng);
                        }
                    },
                }
            }
        }
    }
    image
}

/// Writes part of `data`: each 512-byte sector whole, not at all, or only a prefix of it
/// (byte writes are atomic; nothing outside the range changes; an unwritten byte keeps what
/// the disk held).
fn tear(image: &mut Vec<u8>, offset: u64, data: &[u8], rng: &mut Rng) {
    const SECTOR: usize = 512;
    for (i, chunk) in data.chunks(SECTOR).enumerate() {
        let at = offset + (i * SECTOR) as u64;
        match rng.below(4) {
            0 | 1 => write_at(image, at, chunk),
            2 => {
                let keep = rng.below(chunk.len() as u64) as usize;
                write_at(image, at, &chunk[..keep]);
            }
            _ => {}
        }
    }
}

/// One handle on a [`Disk`].
#[derive(Debug)]
struct Handle(Disk);

impl Handle {
    /// Counts one operation and answers the fault it meets, if any.
    fn begin(&self, s: &mut State, what: &str, grows: bool) -> io::Result<()> {
        if s.after_cut.is_some() {
            return Err(gone());
        }
        s.ops += 1;
        let Some((fault, at)) = s.fault else {
            return Ok(());
        };
        if s.ops < at {
            return Ok(());
        }
        match fault {
            Fault::IoOnce if s.ops == at => {
                s.fired = true;
                Err(failed(what))
            }
            Fault::IoOnce => Ok(()),
            Fault::IoPersistent => {
                s.fired = true;
                Err(failed(what))
            }
            Fault::DiskFull if grows => {
                s.fired = true;
                Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    "simulated disk full",
                ))
            }
            Fault::DiskFull => Ok(()),
            Fault::PowerCut(how) => {
                s.fired = true;
                s.after_cut = Some(cut(&s.durable, &s.unsynced, how));
                Err(gone())
            }
        }
    }
}

impl StorageBackend for Handle {
    fn len(&self) -> io::Result<u64> {
        let s = lock(&self.0);
        if s.after_cut.is_some() {
            return Err(gone());
        }
        Ok(s.live.len() as u64)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let mut s = lock(&self.0);
        self.begin(&mut s, "read", false)?;
        let start = to_usize(offset);
        let src = s
            .live
            .get(start..start + out.len())
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        out.copy_from_slice(src);
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut s = lock(&self.0);
        let grows = len > s.live.len() as u64;
        self.begin(&mut s, "set_len", grows)?;
        let op = Unsynced::SetLen(len);
        apply(&mut s.live, &op);
        s.unsynced.push(op);
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut s = lock(&self.0);
        self.begin(&mut s, "sync", false)?;
        // Replaying the few unsynced operations is cheaper than copying the whole image.
        let unsynced = std::mem::take(&mut s.unsynced);
        for op in &unsynced {
            apply(&mut s.durable, op);
        }
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut s = lock(&self.0);
        let grows = offset + data.len() as u64 > s.live.len() as u64;
        self.begin(&mut s, "write", grows)?;
        let op = Unsynced::Write {
            offset,
            data: data.to_vec(),
        };
        apply(&mut s.live, &op);
        s.unsynced.push(op);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(offset: u64, data: &[u8]) -> Unsynced {
        Unsynced::Write {
            offset,
            data: data.to_vec(),
        }
    }

    #[test]
    fn cuts_keep_durable_bytes_and_choose_among_unsynced_ones() {
        let durable = vec![1u8; 8];
        let ops = [w(2, &[9, 9]), Unsynced::SetLen(12), w(10, &[7, 7])];
        assert_eq!(cut(&durable, &ops, Cut::Drop), durable);
        assert_eq!(
            cut(&durable, &ops, Cut::Apply),
            [1, 1, 9, 9, 1, 1, 1, 1, 0, 0, 7, 7]
        );
        for seed in 0..64 {
            let torn = cut(&durable, &ops, Cut::Tear(seed));
            // Bytes outside every write keep their durable value.
            assert_eq!(&torn[..2], &[1, 1]);
            assert_eq!(&torn[4..8], &[1; 4]);
        }
    }

    #[test]
    fn a_power_cut_freezes_the_disk() {
        let disk = Disk::from_image(&[0; 4]);
        let h = Handle(disk.clone());
        disk.arm(Fault::PowerCut(Cut::Drop), 3);
        h.write(0, &[5]).expect("first op");
        h.sync_data().expect("second op");
        h.write(1, &[6]).expect_err("third op: power is gone");
        h.write(2, &[7]).expect_err("still gone");
        assert_eq!(disk.live_image(), [5, 0, 0, 0]);
        assert!(disk.fired());
    }

    #[test]
    fn a_full_disk_refuses_only_growth() {
        let disk = Disk::from_image(&[0; 4]);
        let h = Handle(disk.clone());
        disk.arm(Fault::DiskFull, 1);
        h.write(0, &[1, 2]).expect("in place");
        let err = h.write(3, &[1, 2]).expect_err("grows");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        h.set_len(2).expect("shrinking is fine");
        assert!(h.set_len(8).is_err());
    }
}
