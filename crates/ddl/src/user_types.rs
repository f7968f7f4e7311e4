//! PostgreSQL's user types, as the file declares them: `CREATE TYPE name AS ENUM (...)` (its
//! labels) and `CREATE DOMAIN name AS base ...` (its base type). A column whose type is one of
//! these names (schema-qualified or not, any case) is read as what it stores: a domain as its
//! base type, an enum as a 4-byte value ([`enum_storage`]).

use sqlparser::ast::{DataType, EnumMember, ObjectName};

/// One user type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UserType {
    /// An enum and its labels in order.
    Enum(Vec<String>),
    /// A domain over this base type.
    Domain(DataType),
}

/// The user types of a file, by bare lower-case name.
#[derive(Debug, Default, Clone)]
pub(crate) struct UserTypes {
    types: Vec<(String, UserType)>,
}

fn bare(name: &ObjectName) -> String {
    crate::build::last_name(name).to_ascii_lowercase()
}

/// An enum column as the reader maps it: an `ENUM` of its labels, which a PostgreSQL file
/// maps to `ColumnType::PgEnum` (the 4-byte OID of its label, `pg_enum`) with the labels.
pub(crate) fn enum_storage(labels: &[String]) -> DataType {
    DataType::Enum(labels.iter().map(|l| EnumMember::Name(l.clone())).collect(), None)
}

impl UserTypes {
    /// Records a type; a later definition of the same name replaces the earlier.
    pub(crate) fn define(&mut self, name: &ObjectName, ty: UserType) {
        let n = bare(name);
        self.types.retain(|(k, _)| *k != n);
        self.types.push((n, ty));
    }

    /// What a column declared with `ty` stores: `ty` itself unless it names a user type (a
    /// domain over a domain is followed to its base).
    pub(crate) fn resolve(&self, ty: &DataType) -> DataType {
        let mut ty = ty.clone();
        // A bounded walk: a file may (wrongly) define a domain over itself.
        for _ in 0..16 {
            let DataType::Custom(name, _) = &ty else { return ty };
            let n = bare(name);
            match self.types.iter().rev().find(|(k, _)| *k == n) {
                Some((_, UserType::Domain(base))) => ty = base.clone(),
                Some((_, UserType::Enum(labels))) => return enum_storage(labels),
                None => return ty,
            }
        }
        ty
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Ident;

    fn name(parts: &[&str]) -> ObjectName {
        ObjectName::from(parts.iter().map(|p| Ident::new(*p)).collect::<Vec<_>>())
    }

    #[test]
    fn domains_resolve_to_their_base_and_enums_to_four_bytes() {
        let mut u = UserTypes::default();
        u.define(&name(&["public", "year"]), UserType::Domain(DataType::Integer(None)));
        u.define(&name(&["mood"]), UserType::Enum(vec!["sad".into(), "ok".into()]));
        u.define(&name(&["Decade"]), UserType::Domain(DataType::Custom(name(&["year"]), vec![])));
        let custom = |p: &[&str]| DataType::Custom(name(p), vec![]);
        assert_eq!(u.resolve(&custom(&["public", "YEAR"])), DataType::Integer(None));
        assert_eq!(u.resolve(&custom(&["decade"])), DataType::Integer(None));
        assert_eq!(u.resolve(&custom(&["mood"])), enum_storage(&["sad".into(), "ok".into()]));
        assert_eq!(u.resolve(&custom(&["other"])), custom(&["other"]));
        u.define(&name(&["loop"]), UserType::Domain(custom(&["loop"])));
        assert_eq!(u.resolve(&custom(&["loop"])), custom(&["loop"]));
    }
}
