//! The search's tunable constants (src/search/params.rs) as the user of each build meets them.
//! A normal build: `tabula tune` prints OpenBench's SPSA lines, and no option is announced or
//! taken. A tuning build (`cargo test --features tune --test tuning`, as .ci/run does): every
//! parameter announced with the bounds `tabula tune` prints, fractional values (OpenBench's
//! SPSA sends them) rounded, bad ones refused with the previous value kept, and the defaults
//! searching exactly the tree an untouched engine searches.

mod common;
use common::EngineProc;
use std::process::Command;
use std::time::Duration;

const T: Duration = Duration::from_secs(60);

/// `tabula tune`'s lines as (name, default, min, max).
fn tune_lines() -> Vec<(String, i64, i64, i64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("tune")
        .output()
        .expect("run tabula tune");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<_> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            assert_eq!(f.len(), 7, "OpenBench's seven fields: {l}");
            assert_eq!(f[1], "int", "{l}");
            let n = |i: usize| f[i].parse::<i64>().expect("an integer field");
            let real = |i: usize| f[i].parse::<f64>().expect("a number field");
            assert!(n(3) <= n(2) && n(2) <= n(4), "default within bounds: {l}");
            assert!(real(5) > 0.0 && real(6) > 0.0, "{l}");
            (f[0].to_string(), n(2), n(3), n(4))
        })
        .collect();
    assert!(rows.len() >= 20, "the search's constants: {rows:?}");
    rows
}

/// The options the handshake announces.
fn announced() -> Vec<String> {
    let mut e = EngineProc::start(&[]);
    e.send("uci");
    let (_, lines) = e.expect("uciok", T);
    lines
        .into_iter()
        .filter(|l| l.starts_with("option name "))
        .collect()
}

/// Nodes of `go depth 9` from a middlegame after `setup` lines, in a fresh engine.
fn nodes_after(setup: &[String]) -> (u64, Vec<String>) {
    let mut e = EngineProc::start(&[]);
    e.send("uci");
    e.expect("uciok", T);
    for s in setup {
        e.send(s);
    }
    e.send("isready");
    let (_, before) = e.expect("readyok", T);
    let errors = before
        .into_iter()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    e.send("position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8");
    e.send("go depth 9");
    let (_, info) = e.expect("bestmove", T);
    let nodes = info
        .iter()
        .rev()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let i = w.iter().position(|x| *x == "nodes")?;
            w.get(i + 1)?.parse().ok()
        })
        .expect("an info line with nodes");
    (nodes, errors)
}

#[cfg(not(feature = "tune"))]
#[test]
fn a_normal_build_prints_the_table_but_takes_no_tuning_option() {
    let rows = tune_lines();
    let options = announced();
    for (name, ..) in &rows {
        assert!(
            !options.iter().any(|o| o.contains(&format!(" {name} "))),
            "{name} is announced in a normal build"
        );
    }
    let (_, errors) = nodes_after(&[format!("setoption name {} value {}", rows[0].0, rows[0].1)]);
    assert_eq!(errors.len(), 1, "one error line: {errors:?}");
    assert!(errors[0].contains("unknown option"), "{errors:?}");
}

#[cfg(feature = "tune")]
#[test]
fn a_tuning_build_announces_every_parameter_with_its_bounds() {
    let options = announced();
    for (name, default, min, max) in tune_lines() {
        let want = format!("option name {name} type spin default {default} min {min} max {max}");
        assert!(options.contains(&want), "missing: {want}\n{options:?}");
    }
}

#[cfg(feature = "tune")]
#[test]
fn the_defaults_search_the_same_tree_and_other_values_another() {
    let rows = tune_lines();
    let (plain, errors) = nodes_after(&[]);
    assert!(errors.is_empty(), "{errors:?}");
    // Every parameter set to its default, some as OpenBench sends them (fractions).
    let defaults: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, (name, d, ..))| {
            if i % 2 == 0 {
                format!("setoption name {name} value {d}")
            } else {
                format!("setoption name {name} value {}.3", d)
            }
        })
        .collect();
    let (same, errors) = nodes_after(&defaults);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(same, plain, "the defaults are the search's constants");
    // Wider reductions search a different (smaller) tree.
    let (reduced, errors) = nodes_after(&["setoption name LmrBase value 140".to_string()]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_ne!(reduced, plain);
    // A refused value keeps the previous one: set, then three bad values.
    let (kept, errors) = nodes_after(&[
        "setoption name LmrBase value 140".to_string(),
        "setoption name LmrBase value 151".to_string(),
        "setoption name LmrBase value -1".to_string(),
        "setoption name LmrBase value fast".to_string(),
    ]);
    assert_eq!(errors.len(), 3, "one error line each: {errors:?}");
    assert!(errors[0].contains("between 0 and 150"), "{errors:?}");
    assert_eq!(kept, reduced);
}
