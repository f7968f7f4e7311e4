//! E5 scaled down (docs/experiments.md): after a rebuild at a lower fill factor, random churn
//! splits far fewer pages, while the rebuilt table starts with more pages.

use keylab_innodb_model::testkit::e5::{churn, load};

#[test]
fn lower_fill_factor_cuts_splits_and_adds_pages() {
    let loaded = load(30_000, 1, keylab_innodb_model::Flavour::MariaDb1011);
    let mut results = Vec::new();
    for ff in [100u8, 90, 75] {
        let mut w = loaded.clone();
        let r = churn(&mut w, ff, 10, 1000, 2);
        w.sim.check().unwrap();
        assert_eq!(w.sim.len(), 30_000);
        results.push((ff, r));
    }
    let (r100, r90, r75) = (results[0].1, results[1].1, results[2].1);
    eprintln!("{results:?}");
    assert!(r100.splits > 5 * r90.splits.max(1), "{results:?}");
    assert!(r90.splits > r75.splits, "{results:?}");
    assert!(r75.pk_leaves_rebuilt > r100.pk_leaves_rebuilt * 6 / 5, "{results:?}");
    assert!(r100.merge_attempts > r75.merge_attempts, "{results:?}");
    assert!(r100.merges > r75.merges, "{results:?}");
}
