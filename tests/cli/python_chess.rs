//! tabula driven by python-chess's UCI client (tests/python/pychess_smoke.py): the client
//! checks the handshake, every move, and the script replays every PV. CI installs
//! python-chess (.ci/run); elsewhere the test is skipped with a note when it is missing.

use std::process::Command;

#[test]
fn python_chess_drives_tabula() {
    let have = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        assert!(
            std::env::var("CI").is_err(),
            "python-chess must be installed in CI"
        );
        eprintln!("python-chess not installed: skipped (pip install chess)");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/pychess_smoke.py");
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_tabula")])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
