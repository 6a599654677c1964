//! Devices: a type ("cpu", "cuda", "meta", or a name a plugin backend registered) and an index.

use std::ffi::{CStr, CString};
use std::fmt;
use std::str::FromStr;

use ctorch_sys as sys;

use crate::error::{Error, ErrorKind, Result};

/// A device type (`ct_device_type`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// The host.
    Cpu,
    /// An NVIDIA GPU (libctorch_cuda.so).
    Cuda,
    /// Shapes and dtypes only, no data.
    Meta,
    /// One of the four plugin types (1 to 4), named by the backend that registered it.
    Plugin(u8),
}

impl DeviceType {
    pub(crate) fn to_c(self) -> sys::ct_device_type {
        match self {
            DeviceType::Cpu => sys::CT_DEVICE_CPU,
            DeviceType::Cuda => sys::CT_DEVICE_CUDA,
            DeviceType::Meta => sys::CT_DEVICE_META,
            DeviceType::Plugin(n) => sys::CT_DEVICE_PLUGIN1 + n as sys::ct_device_type - 1,
        }
    }

    pub(crate) fn from_c(value: sys::ct_device_type) -> Result<DeviceType> {
        Ok(match value {
            sys::CT_DEVICE_CPU => DeviceType::Cpu,
            sys::CT_DEVICE_CUDA => DeviceType::Cuda,
            sys::CT_DEVICE_META => DeviceType::Meta,
            v if (sys::CT_DEVICE_PLUGIN1..=sys::CT_DEVICE_PLUGIN4).contains(&v) => {
                DeviceType::Plugin((v - sys::CT_DEVICE_PLUGIN1 + 1) as u8)
            }
            other => {
                return Err(Error::new(ErrorKind::Internal, format!("unknown ct_device_type {other}: update the ctorch crate")))
            }
        })
    }

    /// "cpu", "cuda", "meta", or the plugin's registered name (None for an unregistered plugin type).
    pub fn name(self) -> Option<&'static str> {
        // SAFETY: returns a static string or NULL for any value.
        let p = unsafe { sys::ct_device_type_name(self.to_c()) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("?"))
    }
}

/// A device: a type and, for devices that have several, an index (`cuda:1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    /// The device type.
    pub kind: DeviceType,
    /// The index; `None` means the type's current device (for cpu and meta there is only one).
    pub index: Option<i32>,
}

impl Device {
    /// The host.
    pub const CPU: Device = Device { kind: DeviceType::Cpu, index: None };
    /// The meta device: tensors with shapes and dtypes but no data.
    pub const META: Device = Device { kind: DeviceType::Meta, index: None };

    /// CUDA device `index`.
    pub fn cuda(index: i32) -> Device {
        Device { kind: DeviceType::Cuda, index: Some(index) }
    }

    /// Parses "cpu", "meta", "cuda", "cuda:1", or a plugin's name with an optional index.
    pub fn parse(s: &str) -> Result<Device> {
        let bad = || Error::new(ErrorKind::InvalidArgument, format!("Device::parse: {s:?} is not a device (expected \"cpu\", \"cuda:0\", \"meta\" or a registered plugin name)"));
        let (name, index) = match s.split_once(':') {
            Some((n, i)) => (n, Some(i.parse::<i32>().map_err(|_| bad())?)),
            None => (s, None),
        };
        let kind = [DeviceType::Cpu, DeviceType::Cuda, DeviceType::Meta]
            .into_iter()
            .chain((1..=4).map(DeviceType::Plugin))
            .find(|t| t.name() == Some(name))
            .ok_or_else(bad)?;
        if index.is_some_and(|i| i < 0) {
            return Err(bad());
        }
        Ok(Device { kind, index })
    }

    pub(crate) fn from_c(kind: sys::ct_device_type, index: i32) -> Result<Device> {
        Ok(Device { kind: DeviceType::from_c(kind)?, index: (index >= 0).then_some(index) })
    }

    /// The device as the C ABI's device string.
    pub(crate) fn to_cstring(self) -> CString {
        CString::new(self.to_string()).expect("device names hold no NUL")
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name().unwrap_or("unregistered"))?;
        match self.index {
            Some(i) => write!(f, ":{i}"),
            None => Ok(()),
        }
    }
}

impl FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Device> {
        Device::parse(s)
    }
}

impl Default for Device {
    fn default() -> Device {
        Device::CPU
    }
}
