//! CUDA devices (`torch.cuda`). The backend (libctorch_cuda.so) loads on first use; without it, a
//! driver or a GPU, [`is_available`] is false, [`device_count`] is 0, and creating or moving a
//! tensor to "cuda" fails with a `Device` error saying why.

use ctorch_sys as sys;

use crate::callback::enter;
use crate::device::Device;
use crate::error::{check, Result};
use crate::tensor::Tensor;

/// Whether at least one CUDA device can be used.
pub fn is_available() -> bool {
    device_count() > 0
}

/// The number of CUDA devices this process sees (0 without the backend, a driver or a GPU).
pub fn device_count() -> usize {
    usize::try_from(unsafe { sys::ct_cuda_device_count() }).unwrap_or(0)
}

/// Waits until every kernel and copy queued on CUDA device `device` has finished. `Device` error
/// when the device does not exist (saying why CUDA has no device, if it has none); `Backend`
/// error when queued work failed.
pub fn synchronize(device: i32) -> Result<()> {
    check(unsafe { sys::ct_cuda_synchronize(device) })
}

/// Gives the caching allocator's unused device memory back to CUDA; memory of live tensors stays.
/// Succeeds without CUDA too.
pub fn empty_cache() -> Result<()> {
    check(unsafe { sys::ct_cuda_empty_cache() })
}

impl Tensor {
    /// A contiguous copy of this cpu tensor in page-locked host memory, which CUDA copies to and
    /// from directly (`Tensor.pin_memory`); `self` again when it is pinned already. `Device` error
    /// when the tensor is not on the cpu or CUDA has no device (saying why); `OutOfMemory` error
    /// when the page-locked memory could not be allocated.
    pub fn pin_memory(&self) -> Result<Tensor> {
        Tensor::make(|out| enter(|| unsafe { sys::ct_tensor_pin_memory(self.as_ptr(), out) }))
    }

    /// Whether the elements live in page-locked host memory (a [`Tensor::pin_memory`] result or
    /// a view of one).
    pub fn is_pinned(&self) -> Result<bool> {
        let mut pinned = 0;
        check(unsafe { sys::ct_tensor_is_pinned(self.as_ptr(), &mut pinned) })?;
        Ok(pinned != 0)
    }

    /// This tensor on the current CUDA device (`Tensor.cuda()`); `self` when it is there already.
    /// `Device` error without a CUDA device (saying why) or for a meta tensor.
    pub fn cuda(&self) -> Result<Tensor> {
        self.to_device(Device { kind: crate::device::DeviceType::Cuda, index: None })
    }

    /// This tensor on the cpu (`Tensor.cpu()`); `self` when it is there already. `Device` error
    /// for a meta tensor (it has no data to move).
    pub fn cpu(&self) -> Result<Tensor> {
        self.to_device(Device::CPU)
    }
}
