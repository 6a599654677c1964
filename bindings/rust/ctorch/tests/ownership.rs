//! No leak after a million creations, by the library's own counters. Alone in its test binary:
//! the counters are exact only while no other thread creates or frees tensors.

use ctorch::{metrics, IndexOp, Tensor};

#[test]
fn a_million_creations_leak_nothing() {
    let counters = || {
        ["tensors.live", "storages.live", "memory.cpu.allocations_live"].map(|name| metrics::get(name).unwrap())
    };
    let before = counters();
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0]);
    for i in 0..1_000_000 {
        let b = (&a + &a).unwrap(); // a new tensor
        let c = b.clone(); // a second reference
        let v = c.i(1..).unwrap(); // a view keeping the storage
        drop(b);
        drop(c);
        assert_eq!(v.size(), vec![2]);
        if i % 100_000 == 0 {
            let e = (&a + &Tensor::from_slice(&[1.0f32; 2])).unwrap_err(); // a failure frees what it made
            assert_eq!(e.kind(), ctorch::ErrorKind::Shape);
        }
    }
    drop(a);
    assert_eq!(counters(), before);
}
