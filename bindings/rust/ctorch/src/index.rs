//! Basic indexing with `.i(...)`: integers select (dropping the dim), ranges narrow it, as in
//! Python's `t[1, 2:4, ..]`:
//!
//! ```
//! # use ctorch::{IndexOp, Tensor};
//! let t = Tensor::from_data(&(0..24).collect::<Vec<i64>>(), &[2, 3, 4]).unwrap();
//! let v = t.i((1, 1..3, ..)).unwrap();             // t[1, 1:3, :]
//! assert_eq!(v.size(), vec![2, 4]);
//! assert_eq!(t.i((.., -1)).unwrap().size(), vec![2, 4]); // negative indices count from the end
//! ```
//! The results are views. Tensor indices (`t[idx]`) are [`Tensor::index`]; steps are
//! [`Tensor::slice_with`].

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::error::Result;
use crate::tensor::Tensor;

/// One index of [`IndexOp::i`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TensorIndexer {
    /// Selects one position and drops the dim (`t[3]`).
    Select(i64),
    /// Keeps positions `start..end` of the dim (`t[1:3]`; `None` is the edge).
    Narrow(Option<i64>, Option<i64>),
}

impl From<i64> for TensorIndexer {
    fn from(i: i64) -> Self {
        TensorIndexer::Select(i)
    }
}
impl From<Range<i64>> for TensorIndexer {
    fn from(r: Range<i64>) -> Self {
        TensorIndexer::Narrow(Some(r.start), Some(r.end))
    }
}
impl From<RangeInclusive<i64>> for TensorIndexer {
    fn from(r: RangeInclusive<i64>) -> Self {
        let end = *r.end();
        TensorIndexer::Narrow(Some(*r.start()), if end == -1 { None } else { Some(end + 1) })
    }
}
impl From<RangeFrom<i64>> for TensorIndexer {
    fn from(r: RangeFrom<i64>) -> Self {
        TensorIndexer::Narrow(Some(r.start), None)
    }
}
impl From<RangeTo<i64>> for TensorIndexer {
    fn from(r: RangeTo<i64>) -> Self {
        TensorIndexer::Narrow(None, Some(r.end))
    }
}
impl From<RangeToInclusive<i64>> for TensorIndexer {
    fn from(r: RangeToInclusive<i64>) -> Self {
        TensorIndexer::Narrow(None, if r.end == -1 { None } else { Some(r.end + 1) })
    }
}
impl From<RangeFull> for TensorIndexer {
    fn from(_: RangeFull) -> Self {
        TensorIndexer::Narrow(None, None)
    }
}

/// Indexing with `.i(...)`: one index, or a tuple of up to six, applied to the leading dims.
pub trait IndexOp<T> {
    /// The view of `self` at `index`; `Index` error for a position out of range.
    fn i(&self, index: T) -> Result<Tensor>;
}

fn apply(t: &Tensor, indices: &[TensorIndexer]) -> Result<Tensor> {
    let mut out = t.clone();
    let mut dim = 0;
    for ix in indices {
        match *ix {
            TensorIndexer::Select(i) => out = out.select(dim, i)?,
            TensorIndexer::Narrow(None, None) => dim += 1,
            TensorIndexer::Narrow(start, end) => {
                out = out.slice_with(dim, start, end, 1)?;
                dim += 1;
            }
        }
    }
    Ok(out)
}

impl<A: Into<TensorIndexer>> IndexOp<A> for Tensor {
    fn i(&self, index: A) -> Result<Tensor> {
        apply(self, &[index.into()])
    }
}

macro_rules! tuple_index {
    ($($name:ident),+) => {
        impl<$($name: Into<TensorIndexer>),+> IndexOp<($($name,)+)> for Tensor {
            #[allow(non_snake_case)]
            fn i(&self, index: ($($name,)+)) -> Result<Tensor> {
                let ($($name,)+) = index;
                apply(self, &[$($name.into()),+])
            }
        }
    };
}
tuple_index!(A);
tuple_index!(A, B);
tuple_index!(A, B, C);
tuple_index!(A, B, C, D);
tuple_index!(A, B, C, D, E);
tuple_index!(A, B, C, D, E, F);
