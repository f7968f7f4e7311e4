//! Each figure's ratio to the best run on its row, ranked within the runs of one simulator
//! model (an nbtree index is compared with nbtree indexes only).
//!
//! Not for: deciding a row's direction (the row's [`Better`], set where the row is built).

use super::{Better, Ratio, Value};

/// [`ratios`] within each model's runs: a run is ranked against runs of its own model only.
pub(super) fn ratios_by_model(
    values: &[Value],
    better: Better,
    models: &[Option<String>],
) -> Vec<Option<Ratio>> {
    let mut out = vec![None; values.len()];
    let mut seen: Vec<&Option<String>> = Vec::new();
    for model in models {
        if seen.contains(&model) {
            continue;
        }
        seen.push(model);
        let members: Vec<usize> = (0..values.len()).filter(|&i| &models[i] == model).collect();
        let group: Vec<Value> = members.iter().map(|&i| values[i].clone()).collect();
        for (i, ratio) in members.into_iter().zip(ratios(&group, better)) {
            out[i] = ratio;
        }
    }
    out
}

/// Ratio of each figure to the best one on a row with direction `better`.
fn ratios(values: &[Value], better: Better) -> Vec<Option<Ratio>> {
    let numbers: Vec<Option<f64>> = values.iter().map(Value::number).collect();
    let present: Vec<f64> = numbers.iter().flatten().copied().collect();
    let all_equal = present.windows(2).all(|w| w[0] == w[1]);
    if present.len() < 2 || all_equal {
        return vec![None; values.len()];
    }
    let best = match better {
        Better::Lower => present.iter().copied().fold(f64::INFINITY, f64::min),
        Better::Higher => present.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    numbers
        .iter()
        .map(|n| {
            let n = (*n)?;
            if n == best {
                return Some(Ratio::Best);
            }
            let r = match better {
                Better::Lower => n / best,
                Better::Higher => best / n,
            };
            r.is_finite().then_some(Ratio::Times(r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::build::count;
    use super::*;

    fn counts(values: &[Option<u64>]) -> Vec<Value> {
        values.iter().map(|v| count(*v)).collect()
    }

    #[test]
    fn lower_is_better_ratios() {
        let r = ratios(&counts(&[Some(353), Some(675), None]), Better::Lower);
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 675.0 / 353.0).abs() < 1e-9));
        assert_eq!(r[2], None, "a null figure has no ratio");
    }

    #[test]
    fn higher_is_better_ratios() {
        let values = vec![Value::Percent(91.6), Value::Percent(64.5)];
        let r = ratios(&values, Better::Higher);
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 91.6 / 64.5).abs() < 1e-9));
    }

    #[test]
    fn no_ratios_when_they_would_say_nothing() {
        assert_eq!(ratios(&counts(&[Some(5), Some(5)]), Better::Lower), vec![None, None]);
        assert_eq!(ratios(&counts(&[Some(5), None]), Better::Lower), vec![None, None]);
        // Best 0: the others have no finite ratio, but the best is still marked.
        let r = ratios(&counts(&[Some(0), Some(4)]), Better::Lower);
        assert_eq!(r, vec![Some(Ratio::Best), None]);
        // Ties share "best".
        let r = ratios(&counts(&[Some(1), Some(1), Some(3)]), Better::Lower);
        assert_eq!(r[..2], [Some(Ratio::Best), Some(Ratio::Best)]);
    }

    #[test]
    fn ratios_compare_runs_of_the_same_model_only() {
        let models = [Some("a".to_string()), Some("a".into()), Some("b".into()), Some("b".into())];
        let r = ratios_by_model(
            &counts(&[Some(10), Some(20), Some(40), Some(50)]),
            Better::Lower,
            &models,
        );
        assert_eq!(r[0], Some(Ratio::Best));
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 2.0).abs() < 1e-9));
        assert_eq!(r[2], Some(Ratio::Best), "best of its own model, though 4x the other's best");
        assert!(matches!(r[3], Some(Ratio::Times(x)) if (x - 1.25).abs() < 1e-9));
        // One model (None everywhere): one group, as before.
        let r = ratios_by_model(&counts(&[Some(10), Some(40)]), Better::Lower, &[None, None]);
        assert!(matches!(r[1], Some(Ratio::Times(x)) if (x - 4.0).abs() < 1e-9));
    }
}
