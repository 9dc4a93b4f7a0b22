//! The referee's parsing of time controls and engines' `info` scores.

use super::*;

#[test]
fn time_controls() {
    assert_eq!(
        Limit::parse_tc("10+0.1"),
        Ok(Limit::Clock {
            moves: None,
            base_ms: 10_000,
            inc_ms: 100
        })
    );
    assert_eq!(
        Limit::parse_tc("40/60"),
        Ok(Limit::Clock {
            moves: Some(40),
            base_ms: 60_000,
            inc_ms: 0
        })
    );
    for bad in ["", "x", "0", "10+", "-1+1", "0/10", "1e99"] {
        assert!(Limit::parse_tc(bad).is_err(), "{bad}");
    }
}

#[test]
fn info_scores() {
    assert_eq!(
        info_score("info depth 3 score cp -25 nodes 10 pv e2e4"),
        Some(-25)
    );
    assert_eq!(info_score("info depth 9 score mate 3 pv a"), Some(99_997));
    assert_eq!(info_score("info depth 9 score mate -2 pv a"), Some(-99_998));
    assert_eq!(info_score("info string hello"), None);
}
