//! `[engine] repeat`: how many times a server runs each of the scenario's runs.

use crate::plan::Scenario;

const SRC: &str = "name = \"t\"\nvariants = [\"ulid\"]\n[[tables]]\nname = \"t\"\n\
                   [[phases]]\nload = { rows = 10 }\n[engine]\n";

#[test]
fn engine_repeat_is_read_and_zero_refused_at_its_place() {
    let none = Scenario::parse(SRC, "s.toml").unwrap();
    assert_eq!(none.repeat(), None);
    let three = Scenario::parse(&format!("{SRC}repeat = 3\n"), "s.toml").unwrap();
    assert_eq!(three.repeat(), Some(3));
    let e = Scenario::parse(&format!("{SRC}repeat = 0\n"), "s.toml").unwrap_err().to_string();
    assert!(e.starts_with("s.toml:8:10:"), "{e}");
}
