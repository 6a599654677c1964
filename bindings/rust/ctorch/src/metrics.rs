//! The library's counters (`ct_metric_get`): live tensors and storages, allocator bytes,
//! compile statistics, CUDA memory. A leak check reads `tensors.live` before and after.

use std::ptr;

use ctorch_sys as sys;

use crate::error::{c_string, check, take_string, Result};

/// One counter by name, e.g. `"tensors.live"`; `InvalidArgument` error (listing the names) for an
/// unknown one.
pub fn get(name: &str) -> Result<i64> {
    let cname = c_string("metrics::get", name)?;
    let mut v = 0;
    check(unsafe { sys::ct_metric_get(cname.as_ptr(), &mut v) })?;
    Ok(v)
}

/// Every counter as one JSON object: `{"tensors.live": 3, ...}`.
pub fn json() -> Result<String> {
    let mut s = ptr::null_mut();
    check(unsafe { sys::ct_metrics_json(&mut s) })?;
    Ok(take_string(s))
}
