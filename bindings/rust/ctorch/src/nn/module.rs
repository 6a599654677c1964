//! The `Module` trait: a forward pass and the named parameters it trains.

use crate::autograd::no_grad;
use crate::error::{Error, ErrorKind, Result};
use crate::tensor::Tensor;

/// A layer or model (`torch.nn.Module`): a forward pass over one tensor and the parameters it
/// trains, by name. Modules are `Send + Sync` (their parameters are tensors), so a model can move
/// to or be shared with other threads.
///
/// Implement [`forward`](Module::forward) and, for a module with parameters,
/// [`named_parameters`](Module::named_parameters); the other methods follow from these two.
pub trait Module: Send + Sync {
    /// The forward pass (`module(x)`).
    fn forward(&self, x: &Tensor) -> Result<Tensor>;

    /// The parameters with their names, in a fixed order (`"weight"`, `"bias"`; a container
    /// prefixes its children's with their position: `"0.weight"`). None by default.
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// The parameters in [`named_parameters`](Module::named_parameters)'s order: the tensors
    /// themselves, for an optimizer.
    fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters().into_iter().map(|(_, t)| t).collect()
    }

    /// The parameters by name, detached (sharing elements, without history), as
    /// `torch.nn.Module.state_dict` gives them: ready for [`crate::checkpoint::save`].
    fn state_dict(&self) -> Result<Vec<(String, Tensor)>> {
        self.named_parameters().into_iter().map(|(n, t)| Ok((n, t.detach()?))).collect()
    }

    /// Copies `state`'s tensors into the parameters of the same names, with grad mode off
    /// (`load_state_dict(strict=True)`). `InvalidArgument` error when a parameter has no entry
    /// or an entry names no parameter; `Shape` when sizes differ. Checks everything first, so on
    /// error no parameter changes.
    fn load_state_dict(&self, state: &[(String, Tensor)]) -> Result<()> {
        let params = self.named_parameters();
        for (name, t) in state {
            let Some((_, p)) = params.iter().find(|(n, _)| n == name) else {
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("load_state_dict: the state has {name:?}, which names no parameter of the module"),
                ));
            };
            if p.size() != t.size() {
                return Err(Error::new(
                    ErrorKind::Shape,
                    format!("load_state_dict: {name:?} is {:?} in the state but {:?} in the module", t.size(), p.size()),
                ));
            }
        }
        if let Some((name, _)) = params.iter().find(|(n, _)| !state.iter().any(|(s, _)| s == n)) {
            return Err(Error::new(ErrorKind::InvalidArgument, format!("load_state_dict: the state has no entry {name:?}")));
        }
        let _guard = no_grad();
        for (name, t) in state {
            if let Some((_, p)) = params.iter().find(|(n, _)| n == name) {
                p.copy_(t)?;
            }
        }
        Ok(())
    }
}

impl<M: Module + ?Sized> Module for Box<M> {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        (**self).forward(x)
    }
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        (**self).named_parameters()
    }
}
