//! `tabula match --report FILE.html`: the page holds the JSON report's numbers exactly (read
//! back from the data inside the page), is one file that fetches nothing, and renders in
//! headless Chromium (`--dump-dom`: the page after its scripts ran) with its plots and the
//! score the JSON gives. The Chromium test is skipped, with a message, where chromium is
//! missing, except under CI, which installs it.

use super::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tabula-report-{}-{name}", std::process::id()))
}

/// A 2-game Connect Four match of tabula against itself (B searching fewer nodes), with
/// `--json` and `--report`; returns the JSON report and the page.
fn two_games(tag: &str, extra: &[&str]) -> (Value, String, PathBuf) {
    let (json, html) = (tmp(&format!("{tag}.json")), tmp(&format!("{tag}.html")));
    let a = format!("name=A cmd={TABULA} args='--game connect4' option.Hash=8");
    let b = format!("name=B cmd={TABULA} args='--game connect4' option.Hash=8 nodes=300");
    let mut args = vec![
        "--game",
        "connect4",
        "match",
        "--engine",
        &a,
        "--engine",
        &b,
        "--games",
        "2",
        "--nodes",
        "2000",
        "--json",
        json.to_str().unwrap_or(""),
        "--report",
        html.to_str().unwrap_or(""),
    ];
    args.extend_from_slice(extra);
    let out = Command::new(TABULA)
        .args(&args)
        .output()
        .expect("run tabula match");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
        .expect("the JSON report parses");
    let page = std::fs::read_to_string(&html).expect("report written");
    let mut tmp_name = html.as_os_str().to_owned();
    tmp_name.push(".tmp");
    assert!(
        !Path::new(&tmp_name).exists(),
        "the temporary file was renamed"
    );
    let _ = std::fs::remove_file(json);
    (j, page, html)
}

/// The data inside the page.
fn page_data(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"match-data\">";
    let start = page.find(open).expect("the data's script") + open.len();
    let len = page[start..].find("</script>").expect("its end");
    serde_json::from_str(&page[start..start + len]).expect("the data parses")
}

/// How the page shows points: "1", "1.5".
fn points(w: &Value, d: &Value) -> String {
    let p = w.as_f64().unwrap_or(f64::NAN) + d.as_f64().unwrap_or(f64::NAN) / 2.0;
    if p.fract() == 0.0 {
        format!("{p}")
    } else {
        format!("{p:.1}")
    }
}

/// The score line the page shows for the first pairing, made from the JSON report.
fn score_line(j: &Value) -> String {
    let p = &j["pairings"][0];
    format!(
        "{} {} \u{2013} {} {}  (+{} ={} -{})",
        p["a"].as_str().unwrap_or(""),
        points(&p["wins"], &p["draws"]),
        points(&p["losses"], &p["draws"]),
        p["b"].as_str().unwrap_or(""),
        p["wins"],
        p["draws"],
        p["losses"]
    )
}

#[test]
fn the_report_of_two_games_holds_the_json_numbers() {
    let (j, page, html) = two_games("data", &[]);
    let _ = std::fs::remove_file(html);
    let d = page_data(&page);
    assert_eq!(d["summary"], j, "the page's numbers are the JSON report's");
    assert_eq!(d["status"], "finished");
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "a finished page stays"
    );
    for fetch in ["<script src", "<link", "<img", "@import", "url(http"] {
        assert!(!page.contains(fetch), "the page fetches nothing: {fetch}");
    }
    // The course: one point per game, the last one the JSON's standing.
    let points = d["course"]["points"].as_array().expect("points");
    assert_eq!(points.len(), 2);
    let (last, p0) = (&points[1], &j["pairings"][0]);
    for k in ["wins", "draws", "losses", "elo", "elo_error"] {
        assert_eq!(last[k], p0[k], "{k}");
    }
    assert_eq!(d["course"]["names"], serde_json::json!(["A", "B"]));
    // Both colours from the one opening (the standard start), and every move timed.
    let openings = d["openings"].as_array().expect("openings");
    assert_eq!(openings.len(), 1);
    let count = |k: &str| -> u64 {
        openings[0][k]
            .as_array()
            .map_or(0, |a| a.iter().filter_map(Value::as_u64).sum())
    };
    assert_eq!((count("as_p1"), count("as_p2")), (1, 1));
    let plies: u64 = j["games"]
        .as_array()
        .expect("games")
        .iter()
        .filter_map(|g| g["plies"].as_u64())
        .sum();
    let moves: u64 = d["times"]
        .as_array()
        .expect("times")
        .iter()
        .flat_map(|t| t["moves"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m.as_u64())
        .sum();
    assert_eq!(moves, plies, "every move has its time");
}

/// The text of the element with `id` in `dom` (its first text, entities of `&`, `<`, `>`
/// decoded).
fn text_of(dom: &str, id: &str) -> Option<String> {
    let at = dom.find(&format!("id=\"{id}\""))?;
    let start = at + dom[at..].find('>')? + 1;
    let end = start + dom[start..].find('<')?;
    Some(
        dom[start..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

#[test]
fn the_report_renders_in_chromium() {
    let chromium = ["chromium", "chromium-browser"].iter().find_map(|n| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .chain([PathBuf::from("/usr/bin")])
            .map(|d| d.join(n))
            .find(|p| p.is_file())
    });
    let Some(chromium) = chromium else {
        common::client_missing("chromium not found (apt-get install chromium)");
        return;
    };
    let (j, _, html) = two_games("chromium", &["--sprt", "elo0=0 elo1=10"]);
    let profile = tmp("chromium-profile");
    let out = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-dev-shm-usage",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            &format!("file://{}", html.display()),
        ])
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let _ = std::fs::remove_file(&html);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("id=\"score\""),
        "no page: {dom} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The plots are there: the Elo line over the games, and the LLR against its bounds.
    for svg in ["elo-svg", "llr-svg"] {
        assert!(
            dom.contains(&format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"{svg}\""
            )),
            "{svg}: {dom}"
        );
    }
    assert!(
        dom.contains("class=\"plot-hline\""),
        "the SPRT's bounds drawn"
    );
    assert_eq!(
        text_of(&dom, "score").as_deref(),
        Some(score_line(&j).as_str()),
        "the score shown is the JSON's"
    );
    let status = text_of(&dom, "status");
    assert_eq!(status.as_deref(), Some("finished"));
    let sprt = text_of(&dom, "sprt").unwrap_or_default();
    let shown: Option<f64> = sprt
        .split_once("LLR ")
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|v| v.parse().ok());
    let llr = j["sprt"]["llr"].as_f64();
    assert!(
        matches!((shown, llr), (Some(a), Some(b)) if (a - b).abs() <= 0.005),
        "{sprt} / {}",
        j["sprt"]
    );
    assert!(
        dom.contains("<ul id=\"problems\"><li class=\"muted\">none</li></ul>"),
        "a clean match lists no problem"
    );
}
