//! Graphs go with their tensors, also when a history reaches its own leaf's accumulator or a grad
//! was recorded by create_graph. One test in its own binary, so no other test moves the counter.

use ctorch::{GradFlags, Tensor};

#[test]
fn in_place_feedback_and_create_graph_leave_no_tensor_alive() {
    let live = || ctorch::metrics::get("tensors.live").unwrap();
    let before = live();
    for _ in 0..100 {
        let x = Tensor::from_data(&[1.0f32, 2.0, 3.0], &[3]).unwrap().set_requires_grad(true).unwrap();
        let s = x.sum().unwrap();
        x.set_requires_grad(false).unwrap();
        x.add_(&s).unwrap(); // x's history now ends at its own AccumulateGrad
        let w = Tensor::from_data(&[1.0f32, 2.0, 3.0], &[3]).unwrap().set_requires_grad(true).unwrap();
        let cube = w.mul(&w).unwrap().mul(&w).unwrap().sum().unwrap();
        cube.backward_with(None, GradFlags::default().create_graph(true)).unwrap();
        assert!(w.grad().unwrap().requires_grad()); // a recorded grad: it goes with w
    }
    assert_eq!(live(), before);
}
