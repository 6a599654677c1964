//! Functions of torch.nn.functional and torch that everyday models and data code call, through the
//! crate's generated methods: distances, one_hot, pixel_shuffle, glu, the margin losses, diff,
//! logcumsumexp, the stacking functions and the triangle factories, checked against values worked
//! out here (their numbers against torch are the Python differential suite's).

use ctorch::{DType, Tensor};

fn vals(t: &Tensor) -> Vec<f64> {
    t.to(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-5, "{a:?} vs {b:?}");
    }
}

#[test]
fn distances() {
    let a = Tensor::from_slice(&[3.0f32, 4.0, 1.0, 0.0]).reshape(&[2, 2]).unwrap();
    let b = Tensor::from_slice(&[3.0f32, 4.0, 0.0, 1.0]).reshape(&[2, 2]).unwrap();
    close(&vals(&Tensor::cosine_similarity(&a, &b).unwrap()), &[1.0, 0.0]);
    close(&vals(&Tensor::pairwise_distance_with(&a, &b, 2.0, 0.0, false).unwrap()), &[0.0, 2f64.sqrt()]);
    let d = Tensor::cdist(&a, &b).unwrap(); // every row of a against every row of b
    assert_eq!(d.size(), [2, 2]);
    close(&vals(&d), &[0.0, (9.0f64 + 9.0).sqrt(), (4.0f64 + 16.0).sqrt(), 2f64.sqrt()]);
    let err = Tensor::cdist(&a, &Tensor::from_slice(&[1.0f32, 2.0, 3.0])).unwrap_err();
    assert!(err.to_string().contains("cdist"), "{err}");
}

#[test]
fn one_hot_pixel_shuffle_and_glu() {
    let classes = Tensor::from_slice(&[2i64, 0, 1]);
    assert_eq!(classes.one_hot().unwrap().to_vec::<i64>().unwrap(), [0, 0, 1, 1, 0, 0, 0, 1, 0]);
    assert_eq!(classes.one_hot_with(4).unwrap().size(), [3, 4]);
    assert!(Tensor::from_slice(&[-1i64]).one_hot().is_err());
    let x = Tensor::arange(0, 8).unwrap().reshape(&[1, 4, 1, 2]).unwrap().to(DType::Float32).unwrap();
    let up = x.pixel_shuffle(2).unwrap();
    assert_eq!(up.size(), [1, 1, 2, 4]);
    // out[0, 0, h, w] = x[0, 2 (h % 2) + (w % 2), h / 2, w / 2]
    assert_eq!(vals(&up), [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0]);
    assert_eq!(vals(&up.pixel_unshuffle(2).unwrap()), vals(&x));
    let g = Tensor::from_slice(&[1.0f64, 2.0, 0.0, 0.0]).glu().unwrap(); // [1, 2] * sigmoid([0, 0])
    close(&vals(&g), &[0.5, 1.0]);
}

#[test]
fn margin_losses() {
    let a = Tensor::from_slice(&[1.0f32, 2.0]);
    let b = Tensor::from_slice(&[2.0f32, 1.0]);
    let y = Tensor::from_slice(&[1.0f32, 1.0]);
    // max(0, -y (a - b) + 0) = [1, 0], mean 0.5
    close(&vals(&Tensor::margin_ranking_loss(&a, &b, &y).unwrap()), &[0.5]);
    let anchor = Tensor::from_slice(&[0.0f32, 0.0]).reshape(&[1, 2]).unwrap();
    let pos = Tensor::from_slice(&[1.0f32, 0.0]).reshape(&[1, 2]).unwrap();
    let neg = Tensor::from_slice(&[3.0f32, 0.0]).reshape(&[1, 2]).unwrap();
    // max(0, 1 + ~1 - ~3) = 0
    close(&vals(&Tensor::triplet_margin_loss(&anchor, &pos, &neg).unwrap()), &[0.0]);
    let loss = Tensor::triplet_margin_loss_with(&anchor, &pos, &neg, 3.0, 2.0, 0.0, false, 0).unwrap();
    close(&vals(&loss), &[1.0]);
}

#[test]
fn scans_stacks_and_factories() {
    let x = Tensor::from_slice(&[1.0f64, 4.0, 9.0, 16.0]);
    assert_eq!(vals(&x.diff().unwrap()), [3.0, 5.0, 7.0]);
    assert_eq!(vals(&x.diff_with(2, 0, None, None).unwrap()), [2.0, 2.0]);
    let z = Tensor::from_slice(&[0.0f64, 0.0]);
    close(&vals(&z.logcumsumexp(0).unwrap()), &[0.0, 2f64.ln()]);
    let h = Tensor::hstack(&[&z, &x]).unwrap();
    assert_eq!(h.size(), [6]);
    let v = Tensor::vstack(&[&z, &z]).unwrap();
    assert_eq!(v.size(), [2, 2]);
    assert!(Tensor::vstack(&[&z, &x]).is_err()); // rows of different lengths
    let idx = Tensor::tril_indices(3, 3).unwrap();
    assert_eq!(idx.to_vec::<i64>().unwrap(), [0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2]);
    close(&vals(&Tensor::logspace(0, 2, 3).unwrap()), &[1.0, 10.0, 100.0]);
    let m = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape(&[2, 2]).unwrap();
    assert_eq!(vals(&m.trace().unwrap()), [5.0]);
    let picked = m.take_along_dim_with(&Tensor::from_slice(&[1i64, 0]).reshape(&[2, 1]).unwrap(), Some(1)).unwrap();
    assert_eq!(vals(&picked), [2.0, 3.0]);
    let c = m.clamp_with(Some(2.into()), Some(3.into())).unwrap();
    assert_eq!(vals(&c), [2.0, 2.0, 3.0, 3.0]);
}

#[test]
fn upsampling() {
    let img = Tensor::from_slice(&[0.0f32, 1.0, 2.0, 3.0]).reshape(&[1, 1, 2, 2]).unwrap();
    let big = img.upsample_nearest2d(&[4, 4]).unwrap();
    assert_eq!(vals(&big), [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 2.0, 2.0, 3.0, 3.0]);
    let mid = img.upsample_bilinear2d(&[3, 3], true).unwrap(); // align_corners: the midpoints
    close(&vals(&mid), &[0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0]);
    assert!(Tensor::from_slice(&[1i64, 2]).upsample_bilinear2d(&[3, 3], false).is_err());
}

#[test]
fn pools_in_one_dim_and_adaptive_max() {
    let x = Tensor::from_slice(&[1.0f32, 5.0, 2.0, 8.0, 3.0, 0.0]).reshape(&[1, 1, 6]).unwrap();
    close(&vals(&x.max_pool1d(&[2]).unwrap()), &[5.0, 8.0, 3.0]);
    close(&vals(&x.avg_pool1d(&[3]).unwrap()), &[8.0 / 3.0, 11.0 / 3.0]);
    let (v, i) = x.adaptive_max_pool1d(&[2]).unwrap(); // windows [0, 3) and [3, 6)
    close(&vals(&v), &[5.0, 8.0]);
    assert_eq!(i.to_vec::<i64>().unwrap(), [1, 3]);
    assert!(x.max_pool1d(&[2, 2]).is_err()); // a 1-D pool takes one size
}

#[test]
fn instance_norm_normalizes_each_sample_and_channel() {
    // One sample, one channel [1, 2, 3]: mean 2, biased variance 2/3.
    let x = Tensor::from_slice(&[1.0f64, 2.0, 3.0]).reshape(&[1, 1, 3]).unwrap();
    let y = Tensor::instance_norm(&x, None, None, None, None, true, 0.1, 0.0, false).unwrap();
    let s = (2.0f64 / 3.0).sqrt();
    close(&vals(&y), &[-1.0 / s, 0.0, 1.0 / s]);
    assert!(Tensor::instance_norm(&x, None, None, None, None, false, 0.1, 1e-5, false).is_err()); // no running stats
}

#[test]
fn volumes_transposed_1d_and_fold() {
    // One 2 x 2 x 2 volume holding 0..8: a kernel of ones sums it; the max pool finds 7 at 7.
    let v = Tensor::arange(0, 8).unwrap().to(DType::Float32).unwrap().reshape(&[1, 1, 2, 2, 2]).unwrap();
    let ones = Tensor::ones(&[1, 1, 2, 2, 2]).unwrap();
    close(&vals(&Tensor::conv3d(&v, &ones).unwrap()), &[28.0]);
    let (m, i) = v.max_pool3d_with_indices(&[2]).unwrap();
    close(&vals(&m), &[7.0]);
    assert_eq!(i.to_vec::<i64>().unwrap(), [7]);
    let back = m.max_unpool3d(&i, &[2, 2, 2], &[2], &[0]).unwrap();
    close(&vals(&back), &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]);
    close(&vals(&v.adaptive_avg_pool3d(&[1, 1, 1]).unwrap()), &[3.5]);
    // conv_transpose1d of [1, 2] by [1, 1] with stride 2 spreads each value over two positions.
    let x = Tensor::from_slice(&[1.0f32, 2.0]).reshape(&[1, 1, 2]).unwrap();
    let w = Tensor::from_slice(&[1.0f32, 1.0]).reshape(&[1, 1, 2]).unwrap();
    let y = Tensor::conv_transpose1d_with(&x, &w, None, &[2], &[0], &[0], 1, &[1]).unwrap();
    close(&vals(&y), &[1.0, 1.0, 2.0, 2.0]);
    // im2col's first row is every 2 x 2 block's top-left value; col2im of ones counts the blocks.
    let img = Tensor::arange(0, 9).unwrap().to(DType::Float32).unwrap().reshape(&[1, 1, 3, 3]).unwrap();
    let cols = img.im2col(&[2, 2], &[1, 1], &[0, 0], &[1, 1]).unwrap();
    assert_eq!(cols.size(), [1, 4, 4]);
    close(&vals(&cols.select(1, 0).unwrap()), &[0.0, 1.0, 3.0, 4.0]);
    let counts = Tensor::ones(&[1, 4, 4]).unwrap().col2im(&[3, 3], &[2, 2], &[1, 1], &[0, 0], &[1, 1]).unwrap();
    close(&vals(&counts), &[1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]);
    let err = Tensor::conv3d(&img, &ones).unwrap_err(); // [1, 1, 3, 3] is one volume of depth 1: too thin
    assert!(err.to_string().contains("conv3d"), "{err}");
}

#[test]
fn as_strided_views_the_storage() {
    let v = Tensor::arange(0, 6).unwrap().to(DType::Float32).unwrap();
    let w = v.as_strided_with(&[2, 3], &[2, 1], Some(1)).unwrap(); // overlapping rows of one storage
    assert_eq!(vals(&w), [1.0, 2.0, 3.0, 3.0, 4.0, 5.0]);
    let err = v.as_strided(&[3, 3], &[2, 1]).unwrap_err();
    assert!(err.to_string().contains("as_strided"), "{err}");
}

#[test]
fn incomplete_gamma() {
    // P(1, x) = 1 - e^-x, and Q = 1 - P.
    let a = Tensor::from_slice(&[1.0f64, 1.0]);
    let x = Tensor::from_slice(&[1.0f64, 2.0]);
    close(&vals(&a.igamma(&x).unwrap()), &[1.0 - (-1.0f64).exp(), 1.0 - (-2.0f64).exp()]);
    close(&vals(&a.igammac(&x).unwrap()), &[(-1.0f64).exp(), (-2.0f64).exp()]);
    assert!(Tensor::from_slice(&[1i64]).igamma(&Tensor::from_slice(&[2i64])).is_err());
}
