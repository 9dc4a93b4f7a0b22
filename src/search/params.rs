//! The search's tunable constants: margins, depth limits and reduction terms, one table of
//! them (name, default, bounds, SPSA step), so that a tuner can move them all.
//!
//! In a normal build each is a constant the compiler folds in (`rfp_depth()` is `8`), and
//! nothing here is visible to a user. Built with the cargo feature `tune`, each is an atomic
//! that a UCI/UGI `setoption` sets (announced as `type spin` with its bounds; a fractional
//! value, as OpenBench's SPSA sends, is rounded), for every search thread at once.
//! `tabula tune` prints the table as OpenBench's SPSA workloads read it: `name, int, value,
//! min, max, c_end, r_end`.
//!
//! Invariants: every default lies within its bounds; the defaults are exactly the constants the
//! search used before this table, so a tuning build that sets nothing plays the same nodes as
//! a normal build (the bench signature is the same). Units: evaluation units (centipawns in
//! chess), plies, or what the name says (`...Pct`: hundredths; `Lmr...`: hundredths of the
//! reduction formula's terms).

/// One tunable constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// The option's name (UCI `setoption name ...`), CamelCase as engines' tuning options are.
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA's final perturbation (`c_end`), in the parameter's units.
    pub c_end: f64,
    /// SPSA's final learning rate (`r_end`).
    pub r_end: f64,
}

impl Param {
    /// The line OpenBench's SPSA workload reads for this parameter.
    pub fn openbench_line(&self) -> String {
        format!(
            "{}, int, {}, {}, {}, {}, {}",
            self.name, self.default, self.min, self.max, self.c_end, self.r_end
        )
    }
}

/// OpenBench's usual final learning rate.
const R_END: f64 = 0.002;

macro_rules! params {
    ($( $getter:ident $name:literal = $default:literal in $min:literal ..= $max:literal step $c:literal, $doc:literal; )*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        enum Id { $( $getter, )* }

        /// Every tunable constant, in the order `tabula tune` prints them.
        pub const PARAMS: &[Param] = &[
            $( Param { name: $name, default: $default, min: $min, max: $max, c_end: $c, r_end: R_END }, )*
        ];

        #[cfg(feature = "tune")]
        static VALUES: [std::sync::atomic::AtomicI32; PARAMS.len()] =
            [ $( std::sync::atomic::AtomicI32::new($default), )* ];

        $(
            #[doc = $doc]
            #[inline(always)]
            pub fn $getter() -> i32 {
                #[cfg(feature = "tune")]
                {
                    VALUES[Id::$getter as usize].load(std::sync::atomic::Ordering::Relaxed)
                }
                #[cfg(not(feature = "tune"))]
                {
                    let _ = Id::$getter;
                    $default
                }
            }
        )*
    };
}

params! {
    rfp_depth "RfpDepth" = 8 in 3 ..= 14 step 0.5,
        "Reverse futility pruning: the deepest node it applies to.";
    rfp_margin_pct "RfpMarginPct" = 100 in 50 ..= 200 step 5.0,
        "Reverse futility pruning: the game's margin per ply (`SearchHints::FUTILITY_MARGIN`), in percent.";
    razor_depth "RazorDepth" = 3 in 1 ..= 6 step 0.5,
        "Razoring: the deepest node it applies to.";
    razor_margin "RazorMargin" = 250 in 100 ..= 500 step 12.0,
        "Razoring: the margin per ply below alpha.";
    nmp_base "NmpBase" = 3 in 1 ..= 6 step 0.5,
        "Null-move pruning: the reduction's constant part.";
    nmp_depth_div "NmpDepthDiv" = 3 in 2 ..= 6 step 0.5,
        "Null-move pruning: one more ply of reduction per this many plies of depth.";
    nmp_eval_div "NmpEvalDiv" = 200 in 60 ..= 400 step 10.0,
        "Null-move pruning: one more ply of reduction per this much eval above beta (at most 3).";
    iir_depth "IirDepth" = 6 in 3 ..= 10 step 0.5,
        "Internal iterative reduction: the shallowest node without a table move it applies to.";
    lmp_base "LmpBase" = 3 in 1 ..= 10 step 0.5,
        "Late-move pruning: quiet moves tried before the rest are skipped, `(LmpBase + d^2) / 2` (twice when improving).";
    lmp_depth "LmpDepth" = 8 in 3 ..= 14 step 0.5,
        "Late-move pruning: the deepest node it applies to.";
    fut_base "FutBase" = 100 in 0 ..= 300 step 8.0,
        "Futility pruning of quiet moves: the margin's constant part.";
    fut_mult "FutMult" = 100 in 30 ..= 250 step 6.0,
        "Futility pruning of quiet moves: the margin per ply of reduced depth.";
    fut_depth "FutDepth" = 8 in 3 ..= 14 step 0.5,
        "Futility pruning of quiet moves: the deepest reduced depth it applies to.";
    hist_prune "HistPrune" = 4000 in 1000 ..= 12000 step 250.0,
        "History pruning: a quiet move whose history is below minus this per ply is skipped.";
    hist_prune_depth "HistPruneDepth" = 3 in 1 ..= 6 step 0.5,
        "History pruning: the deepest reduced depth it applies to.";
    see_quiet "SeeQuiet" = 25 in 5 ..= 60 step 2.0,
        "Quiet moves losing more than this times the reduced depth squared on their square are skipped.";
    see_tactical "SeeTactical" = 100 in 30 ..= 200 step 6.0,
        "Captures losing more than this per ply (depth 8 or less) are skipped.";
    singular_depth "SingularDepth" = 8 in 4 ..= 12 step 0.5,
        "Singular extensions: the shallowest node they apply to.";
    singular_mult "SingularMult" = 2 in 1 ..= 6 step 0.5,
        "Singular extensions: the lowered bound is the table score minus this per ply.";
    lmr_base "LmrBase" = 75 in 0 ..= 150 step 5.0,
        "Late-move reductions: the formula's constant, in hundredths of a ply.";
    lmr_div "LmrDiv" = 225 in 150 ..= 350 step 10.0,
        "Late-move reductions: the divisor of ln(depth) ln(move number), in hundredths.";
    lmr_hist_div "LmrHistDiv" = 8192 in 2048 ..= 16384 step 400.0,
        "Late-move reductions: one ply less per this much history.";
    asp_delta "AspDelta" = 30 in 10 ..= 80 step 3.0,
        "Aspiration windows: the first window's half-width at the root.";
}

/// The parameter named `name` (any case).
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Sets parameter `name` to `value` (a number, fractional ones rounded to the nearest) within
/// its bounds. `None`: no such parameter, or this build has no tuning (the caller goes on to
/// its other options); `Some(Err)`: the value was refused.
pub fn set(name: &str, value: &str) -> Option<Result<(), String>> {
    if !cfg!(feature = "tune") {
        return None;
    }
    let (i, p) = PARAMS
        .iter()
        .enumerate()
        .find(|(_, p)| p.name.eq_ignore_ascii_case(name))?;
    Some(parse(p, value).map(|v| store(i, v)))
}

fn parse(p: &Param, value: &str) -> Result<i32, String> {
    let v: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| {
            format!(
                "option '{}' expects a number, not '{}'",
                p.name,
                value.trim()
            )
        })?;
    let v = v.round();
    if v < f64::from(p.min) || v > f64::from(p.max) {
        return Err(format!(
            "option '{}' must be between {} and {}, not {}",
            p.name,
            p.min,
            p.max,
            value.trim()
        ));
    }
    Ok(v as i32)
}

#[cfg(feature = "tune")]
fn store(i: usize, v: i32) {
    VALUES[i].store(v, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(not(feature = "tune"))]
fn store(_: usize, _: i32) {}

/// The parameters a `setoption` can set in this build (all of them in a tuning build, none
/// otherwise), for the handshake's option list.
pub fn announced() -> &'static [Param] {
    if cfg!(feature = "tune") { PARAMS } else { &[] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_within_their_bounds_and_names_are_unique() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
            assert!(p.c_end > 0.0, "{}", p.name);
            assert!(
                PARAMS[..i]
                    .iter()
                    .all(|q| !q.name.eq_ignore_ascii_case(p.name))
            );
        }
    }

    #[test]
    fn getters_answer_the_defaults() {
        // Run single-threaded in spirit: nothing in the test suite sets a parameter.
        let got = [
            rfp_depth(),
            rfp_margin_pct(),
            razor_depth(),
            razor_margin(),
            nmp_base(),
            nmp_depth_div(),
            nmp_eval_div(),
            iir_depth(),
            lmp_base(),
            lmp_depth(),
            fut_base(),
            fut_mult(),
            fut_depth(),
            hist_prune(),
            hist_prune_depth(),
            see_quiet(),
            see_tactical(),
            singular_depth(),
            singular_mult(),
            lmr_base(),
            lmr_div(),
            lmr_hist_div(),
            asp_delta(),
        ];
        let want: Vec<i32> = PARAMS.iter().map(|p| p.default).collect();
        assert_eq!(got.to_vec(), want);
    }

    #[test]
    fn values_are_parsed_rounded_and_bounded() {
        let p = find("razormargin").map(|p| (parse(p, "249.6"), parse(p, "-3"), parse(p, "x")));
        let Some((ok, low, bad)) = p else {
            panic!("RazorMargin is a parameter");
        };
        assert_eq!(ok, Ok(250));
        assert!(low.is_err_and(|e| e.contains("between 100 and 500")));
        assert!(bad.is_err_and(|e| e.contains("expects a number")));
    }

    #[test]
    fn the_openbench_line_has_its_seven_fields() {
        let line = PARAMS[0].openbench_line();
        assert_eq!(line, "RfpDepth, int, 8, 3, 14, 0.5, 0.002");
    }
}
