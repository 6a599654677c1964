//! The typed methods cover exactly the built-in operators of the library the tests run against:
//! regenerate generated.rs with codegen/gen_ops.py when this fails.

use std::collections::BTreeSet;

use ctorch::{ops, GENERATED_OVERLOADS};

/// "name.overload" of every built-in operator, from the registry's one-line-per-operator JSON.
fn builtin_overloads() -> BTreeSet<String> {
    let json = ops::registry_json().unwrap();
    let field = |line: &str, key: &str| -> String {
        let start = line.find(&format!("\"{key}\": \"")).unwrap() + key.len() + 5;
        line[start..start + line[start..].find('"').unwrap()].to_string()
    };
    json.lines()
        .filter(|l| l.starts_with("{\"name\": ") && l.contains("\"builtin\": true"))
        .map(|l| {
            let (name, overload) = (field(l, "name"), field(l, "overload"));
            if overload.is_empty() { name } else { format!("{name}.{overload}") }
        })
        .collect()
}

#[test]
fn generated_methods_match_the_registry() {
    let registry = builtin_overloads();
    assert!(registry.len() > 300, "parsed only {} operators", registry.len());
    let generated: BTreeSet<String> = GENERATED_OVERLOADS.iter().map(|s| s.to_string()).collect();
    let missing: Vec<_> = registry.difference(&generated).collect();
    let stale: Vec<_> = generated.difference(&registry).collect();
    assert!(missing.is_empty() && stale.is_empty(),
            "run codegen/gen_ops.py: operators without a method {missing:?}, methods without an operator {stale:?}");
}

#[test]
fn boxed_call_reaches_operators_by_name() {
    let a = ctorch::Tensor::from_slice(&[1.0f32, -2.0]);
    let out = ops::call("abs", &[(&a).into()]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    let (values, indices) = a.sort().unwrap();
    assert_eq!(values.to_vec::<f32>().unwrap(), vec![-2.0, 1.0]);
    assert_eq!(indices.to_vec::<i64>().unwrap(), vec![1, 0]);
    let e = ops::call("no_such_op", &[]).unwrap_err();
    assert_eq!(e.kind(), ctorch::ErrorKind::InvalidArgument);
    assert!(ops::schema("add").unwrap().contains("add.Tensor("));
}
