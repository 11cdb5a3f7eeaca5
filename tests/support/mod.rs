//! Helpers shared by the checkpoint tests of the distributed engine (`cluster.rs`) and of the
//! depth-limited search (`limited.rs`).

use std::fs;
use std::path::{Path, PathBuf};

/// Something done to a copy of a checkpoint folder.
pub type Damage<'a> = Box<dyn Fn(&Path) + 'a>;

/// Copies the files of checkpoint folder `ck` into a new folder `to`, applies `damage` to the
/// copy, and returns the copy's path.
pub fn damaged_copy(ck: &Path, to: PathBuf, damage: &dyn Fn(&Path)) -> PathBuf {
    fs::create_dir_all(&to).unwrap();
    for e in fs::read_dir(ck).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    damage(&to);
    to
}
