"""ctorch.nn against torch.nn: each module with torch's weights copied across gives torch's outputs,
input grads and parameter grads; state_dict names, order and shapes match torch's; losses match;
a training loop written once runs with either library (only the import differs) and ends at the
same parameters; Module's bookkeeping (registration, train/eval, zero_grad, to, strict loading)
behaves as torch's; state dicts round-trip through ctorch.save_file / load_file."""

import collections
import os
import re

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

RTOL, ATOL = 2e-5, 2e-6


def to_ct(t):
    return ctorch.tensor(t.detach().numpy().copy())


def to_np(t):
    return np.asarray(t.detach().tolist() if hasattr(t, "tolist") else t)


def close(a, b, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(np.asarray(a.detach().tolist()), b.detach().numpy(), rtol=rtol, atol=atol)


def copy_weights(th_module, ct_module):
    """torch's parameters and buffers into ct_module, through load_state_dict (strict)."""
    ct_module.load_state_dict({k: to_ct(v) for k, v in th_module.state_dict().items()})


def pair(make, *args, **kwargs):
    """The same module built by both libraries (make(nn_module)), ctorch's with torch's weights."""
    torch.manual_seed(0)
    th = make(torch.nn, *args, **kwargs)
    ct = make(ctorch.nn, *args, **kwargs)
    copy_weights(th, ct)
    return th, ct


MODULES = {
    "linear": (lambda nn: nn.Linear(5, 3), (4, 5)),
    "linear-no-bias": (lambda nn: nn.Linear(5, 3, bias=False), (2, 6, 5)),
    "conv2d": (lambda nn: nn.Conv2d(2, 4, 3, padding=1), (2, 2, 6, 7)),
    "conv2d-stride-dilation": (lambda nn: nn.Conv2d(2, 4, (3, 2), stride=2, dilation=(1, 2), bias=False), (2, 2, 9, 8)),
    "conv2d-groups": (lambda nn: nn.Conv2d(4, 6, 3, groups=2), (1, 4, 5, 5)),
    "conv2d-same": (lambda nn: nn.Conv2d(2, 3, 4, padding="same"), (2, 2, 6, 6)),
    "conv2d-reflect": (lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (2, 2, 5, 6)),
    "batchnorm2d": (lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    "batchnorm2d-no-affine": (lambda nn: nn.BatchNorm2d(3, affine=False, momentum=0.3), (4, 3, 2, 2)),
    "batchnorm1d": (lambda nn: nn.BatchNorm1d(3), (8, 3)),
    "layernorm": (lambda nn: nn.LayerNorm((4, 5)), (3, 4, 5)),
    "layernorm-no-affine": (lambda nn: nn.LayerNorm(5, eps=1e-3, elementwise_affine=False), (3, 5)),
    "relu": (lambda nn: nn.ReLU(), (3, 7)),
    "gelu": (lambda nn: nn.GELU(), (3, 7)),
    "gelu-tanh": (lambda nn: nn.GELU("tanh"), (3, 7)),
    "sigmoid": (lambda nn: nn.Sigmoid(), (3, 7)),
    "tanh": (lambda nn: nn.Tanh(), (3, 7)),
    "leaky-relu": (lambda nn: nn.LeakyReLU(0.2), (3, 7)),
    "softmax": (lambda nn: nn.Softmax(dim=1), (3, 7)),
    "log-softmax": (lambda nn: nn.LogSoftmax(dim=-1), (3, 7)),
    "flatten": (lambda nn: nn.Flatten(), (2, 3, 4, 5)),
    "flatten-dims": (lambda nn: nn.Flatten(0, 1), (2, 3, 4)),
    "maxpool2d": (lambda nn: nn.MaxPool2d(2), (2, 3, 6, 6)),
    "maxpool2d-padded": (lambda nn: nn.MaxPool2d(3, stride=2, padding=1), (2, 3, 7, 7)),
    "avgpool2d": (lambda nn: nn.AvgPool2d(2), (2, 3, 6, 6)),
    "identity": (lambda nn: nn.Identity(7, unused=True), (3, 7)),
    **{f"activation-{name.lower()}": (lambda nn, name=name, args=args: getattr(nn, name)(*args), (3, 8))
       for name, args in [("ReLU6", ()), ("ELU", (0.5,)), ("SELU", ()), ("CELU", (1.5,)), ("Mish", ()),
                          ("Hardswish", ()), ("Hardsigmoid", ()), ("Hardtanh", (-0.5, 0.7)), ("Softplus", (2.0,)),
                          ("Softsign", ()), ("Tanhshrink", ()), ("Hardshrink", (0.3,)), ("Softshrink", (0.2,)),
                          ("LogSigmoid", ()), ("Threshold", (0.1, -2.0)), ("GLU", ()), ("Softmin", (1,)),
                          ("PReLU", ())]},
    "prelu-channels": (lambda nn: nn.PReLU(3, init=0.1), (2, 3, 4)),
    "conv1d": (lambda nn: nn.Conv1d(3, 4, 3, padding=1), (2, 3, 9)),
    "conv1d-same-dilated": (lambda nn: nn.Conv1d(2, 3, 4, padding="same", dilation=2, bias=False), (2, 2, 10)),
    "conv1d-circular": (lambda nn: nn.Conv1d(2, 2, 3, padding=2, padding_mode="circular", groups=2), (1, 2, 7)),
    "conv-transpose2d": (lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), (2, 3, 4, 5)),
    "conv-transpose2d-groups": (lambda nn: nn.ConvTranspose2d(4, 6, (2, 3), groups=2, dilation=(1, 2), bias=False),
                                (1, 4, 3, 3)),
    "adaptive-avgpool2d": (lambda nn: nn.AdaptiveAvgPool2d((3, None)), (2, 3, 7, 5)),
    "pixel-shuffle": (lambda nn: nn.Sequential(nn.PixelShuffle(2), nn.PixelUnshuffle(2), nn.PixelShuffle(2)),
                      (2, 8, 3, 3)),
    "groupnorm": (lambda nn: nn.GroupNorm(2, 4), (3, 4, 5)),
    "groupnorm-no-affine": (lambda nn: nn.GroupNorm(1, 3, eps=1e-3, affine=False), (2, 3, 2, 2)),
    "unflatten": (lambda nn: nn.Unflatten(1, (2, 4)), (3, 8)),
    "dropout2d-p0": (lambda nn: nn.Dropout2d(0.0), (2, 3, 4, 4)),
    **{f"pad-{name.lower()}": (lambda nn, name=name, args=args: getattr(nn, name)(*args), shape)
       for name, args, shape in [("ZeroPad2d", ((1, 0, 2, 1),), (2, 3, 4, 4)), ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
                                 ("ConstantPad2d", ((1, 2, 0, 1), -1.0), (2, 3, 4)),
                                 ("ConstantPad3d", (1, 0.5), (1, 2, 2, 3, 3)), ("ReflectionPad1d", (2,), (2, 3, 5)),
                                 ("ReflectionPad2d", ((1, 2, 2, 1),), (1, 2, 4, 4)),
                                 ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)), ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
                                 ("ReplicationPad2d", (2,), (1, 2, 3, 3)), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),), (1, 1, 2, 3, 3))]},
    "cnn": (lambda nn: nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Flatten(), nn.Linear(128, 10)), (5, 1, 8, 8)),
    "mlp": (lambda nn: nn.Sequential(nn.Linear(64, 32), nn.GELU(), nn.LayerNorm(32), nn.Dropout(0.0),
                                     nn.Linear(32, 10)), (6, 64)),
}


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_module_matches_torch(name, mode):
    make, shape = MODULES[name]
    th, ct = pair(make)
    getattr(th, mode)()
    getattr(ct, mode)()
    x = torch.randn(*shape, requires_grad=True)
    xc = to_ct(x).requires_grad_()
    y, yc = th(x), ct(xc)
    close(yc, y)
    g = torch.randn(*y.shape)
    (y * g).sum().backward()
    (yc * to_ct(g)).sum().backward()
    close(xc.grad, x.grad, rtol=1e-4, atol=1e-5)
    th_grads = dict(th.named_parameters())
    for pname, p in ct.named_parameters():
        close(p.grad, th_grads[pname].grad, rtol=1e-4, atol=1e-5)
    for bname, b in th.named_buffers():  # running statistics after the step
        close(dict(ct.named_buffers())[bname], b)


def test_embedding_matches_torch():
    th, ct = pair(lambda nn: nn.Embedding(10, 3, padding_idx=1))
    idx = torch.tensor([[1, 2, 4], [4, 3, 9]])
    y, yc = th(idx), ct(to_ct(idx))
    close(yc, y)
    g = torch.randn(*y.shape)
    (y * g).sum().backward()
    (yc * to_ct(g)).sum().backward()
    close(ct.weight.grad, th.weight.grad)
    assert to_np(ct.weight.grad)[1].tolist() == [0.0, 0.0, 0.0]  # padding_idx gets no gradient


def test_embedding_default_init_zeroes_the_padding_row():
    e = ctorch.nn.Embedding(20, 4, padding_idx=-1)
    assert e.padding_idx == 19
    assert to_np(e.weight)[19].tolist() == [0.0] * 4
    assert e.weight.requires_grad


def test_state_dict_names_order_and_shapes_match_torch():
    make, _ = MODULES["cnn"]
    th, ct = pair(make)
    th_sd, ct_sd = th.state_dict(), ct.state_dict()
    assert list(ct_sd) == list(th_sd)
    assert [tuple(v.shape) for v in ct_sd.values()] == [tuple(v.shape) for v in th_sd.values()]
    assert [n for n, _ in ct.named_parameters()] == [n for n, _ in th.named_parameters()]
    assert [n for n, _ in ct.named_buffers()] == [n for n, _ in th.named_buffers()]
    assert ct_sd["1.num_batches_tracked"].dtype == ctorch.int64
    assert not ct_sd["0.weight"].requires_grad  # detached, as torch's


def test_batchnorm_counts_batches_and_cumulative_momentum():
    th, ct = pair(lambda nn: nn.BatchNorm2d(2, momentum=None))
    for _ in range(3):
        x = torch.randn(4, 2, 3, 3)
        th(x), ct(to_ct(x))
    assert int(ct.num_batches_tracked.item()) == 3
    close(ct.running_mean, th.running_mean)
    close(ct.running_var, th.running_var)


def test_batchnorm2d_rejects_other_ranks():
    with pytest.raises(ValueError, match="expected 4D input"):
        ctorch.nn.BatchNorm2d(3)(ctorch.randn(2, 3))


LOSSES = [
    ("CrossEntropyLoss", {}, "class"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "reduction": "sum"}, "class"),
    ("CrossEntropyLoss", {"ignore_index": 2}, "class"),
    ("CrossEntropyLoss", {"weight": [0.5, 1.0, 2.0, 1.5]}, "class"),
    ("CrossEntropyLoss", {}, "probs"),
    ("NLLLoss", {}, "logprob"),
    ("NLLLoss", {"reduction": "none", "weight": [1.0, 2.0, 0.5, 1.0]}, "logprob"),
    ("MSELoss", {}, "same"),
    ("MSELoss", {"reduction": "sum"}, "same"),
    ("L1Loss", {}, "same"),
    ("SmoothL1Loss", {"beta": 0.5}, "same"),
    ("HuberLoss", {"delta": 0.7}, "same"),
    ("BCEWithLogitsLoss", {}, "binary"),
    ("BCEWithLogitsLoss", {"pos_weight": [1.0, 2.0, 3.0, 0.5]}, "binary"),
    ("BCELoss", {}, "binary-prob"),
]


@pytest.mark.parametrize("name,kwargs,target", LOSSES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LOSSES)])
def test_loss_matches_torch(name, kwargs, target):
    torch.manual_seed(1)
    x = torch.randn(6, 4, requires_grad=True)
    t = {"class": torch.tensor([0, 1, 2, 3, 2, 1]),
         "probs": torch.softmax(torch.randn(6, 4), 1),
         "same": torch.randn(6, 4),
         "binary": torch.randint(0, 2, (6, 4)).float(),
         "binary-prob": torch.randint(0, 2, (6, 4)).float()}.get(target)
    inp = x
    if target == "logprob":
        inp, t = torch.log_softmax(x, 1), torch.tensor([0, 1, 2, 3, 2, 1])
    if target == "binary-prob":
        inp = torch.sigmoid(x)
    th_kwargs = {k: torch.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    ct_kwargs = {k: ctorch.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    loss = getattr(torch.nn, name)(**th_kwargs)(inp, t)
    xc = to_ct(x).requires_grad_()
    inp_c = xc
    if target == "logprob":
        inp_c = ctorch.nn.functional.log_softmax(xc, 1)
    if target == "binary-prob":
        inp_c = xc.sigmoid()
    loss_c = getattr(ctorch.nn, name)(**ct_kwargs)(inp_c, to_ct(t))
    close(loss_c, loss)
    loss.sum().backward()
    loss_c.sum().backward()
    close(xc.grad, x.grad)


# Losses of several inputs: (name, constructor kwargs, input shapes, target values or None)
PAIR_LOSSES = [
    ("MarginRankingLoss", {"margin": 0.2}, [(6,), (6,)], [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]),
    ("HingeEmbeddingLoss", {"margin": 0.5, "reduction": "sum"}, [(6,)], [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]),
    ("SoftMarginLoss", {}, [(6,)], [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]),
    ("CosineEmbeddingLoss", {"margin": 0.1}, [(6, 4), (6, 4)], [1.0, -1.0, 1.0, 1.0, -1.0, -1.0]),
    ("TripletMarginLoss", {"margin": 0.7, "swap": True}, [(6, 4), (6, 4), (6, 4)], None),
    ("PoissonNLLLoss", {"full": True}, [(6, 4)], "rates"),
    ("GaussianNLLLoss", {"full": True}, [(6, 4), (6, 4)], "variances"),
    ("MultiLabelSoftMarginLoss", {}, [(6, 4)], "labels"),
]


@pytest.mark.parametrize("name,kwargs,shapes,target", PAIR_LOSSES, ids=[n for n, *_ in PAIR_LOSSES])
def test_loss_of_several_inputs_matches_torch(name, kwargs, shapes, target):
    torch.manual_seed(2)
    xs = [torch.randn(*s, requires_grad=True) for s in shapes]
    extra = []
    if isinstance(target, list):
        extra = [torch.tensor(target)]
    elif target == "rates":
        extra = [torch.rand(*shapes[0]) * 4]
    elif target == "variances":  # input, target, var: only the input is differentiated
        xs, extra = xs[:1], [torch.randn(*shapes[1]), torch.rand(*shapes[1]) + 0.1]
    elif target == "labels":
        extra = [torch.randint(0, 2, shapes[0]).float()]
    th_args = xs + extra
    xcs = [to_ct(x).requires_grad_() for x in xs]
    ct_args = xcs + [to_ct(e) for e in extra]
    loss = getattr(torch.nn, name)(**kwargs)(*th_args)
    loss_c = getattr(ctorch.nn, name)(**kwargs)(*ct_args)
    close(loss_c, loss)
    loss.sum().backward()
    loss_c.sum().backward()
    for xc, x in zip(xcs, xs):
        close(xc.grad, x.grad, rtol=1e-4, atol=1e-6)


def test_functional_extras_match_torch():
    torch.manual_seed(3)
    x = torch.randn(4, 5)
    close(ctorch.nn.functional.normalize(to_ct(x), p=1.0, dim=0), torch.nn.functional.normalize(x, p=1.0, dim=0))
    close(ctorch.nn.functional.normalize(to_ct(x)), torch.nn.functional.normalize(x))
    close(ctorch.nn.functional.softmin(to_ct(x), 1), torch.nn.functional.softmin(x, 1))
    y = to_ct(x).clone()
    ctorch.nn.functional.relu6(y, inplace=True)
    close(y, torch.nn.functional.relu6(x))
    close(ctorch.cdist(to_ct(x), to_ct(x[:2]), compute_mode="use_mm_for_euclid_dist"),
          torch.cdist(x, x[:2], compute_mode="use_mm_for_euclid_dist"), atol=1e-5)
    with pytest.raises(ValueError):
        ctorch.nn.functional.gaussian_nll_loss(to_ct(x), to_ct(x), -ctorch.ones(4, 5))


def test_channel_dropout_zeroes_whole_channels():
    ctorch.manual_seed(0)
    x = ctorch.ones(8, 16, 3, 3)
    y = ctorch.nn.functional.dropout2d(x, 0.5)
    per_channel = y.reshape(8, 16, 9)
    first = per_channel[:, :, :1]
    assert bool((per_channel == first).all())  # one draw per (sample, channel)
    kept = (first > 0).float().mean().item()
    assert 0.3 < kept < 0.7 and set(first.unique().tolist()) <= {0.0, 2.0}
    assert ctorch.nn.Dropout2d(0.5).eval()(x) is x
    with pytest.raises(RuntimeError):
        ctorch.nn.functional.dropout2d(ctorch.ones(3, 3), 0.5)


def test_forward_hooks_run_in_torchs_order_and_come_off():
    results = {}
    for lib in (ctorch, torch):
        torch.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh())
        log = []
        pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        first = m[0].register_forward_hook(lambda mod, args, out: log.append(("first", tuple(out.shape))))
        m[0].register_forward_hook(lambda mod, args, out: out + 1)
        m[1].register_forward_hook(lambda mod, args, out: log.append(("second", float(out.sum()) != 0)))
        x = lib.ones(4, 3)
        out1 = m(x)
        first.remove()
        pre.remove()
        out2 = m(x)
        results[lib.__name__] = (log, out1.shape, out2.shape)
        with m.register_forward_hook(lambda mod, args, out: out * 0):
            assert float(m(x).abs().sum()) == 0
        assert float(m(x).abs().sum()) != 0  # the with block removed it
    assert results["ctorch"] == results["torch"]


def test_forward_hook_flags_of_torch_2():
    m = ctorch.nn.Linear(3, 2)
    order = []
    m.register_forward_hook(lambda mod, args, out: order.append("second"))
    m.register_forward_hook(lambda mod, args, out: order.append("first"), prepend=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: order.append(sorted(kwargs)), with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, kwargs), with_kwargs=True)
    m(ctorch.ones(1, 3))
    assert order == ["first", "second", []]

    class Failing(ctorch.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    f, seen = Failing(), []
    f.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    f.register_forward_hook(lambda mod, args, out: seen.append("not always"))
    with pytest.raises(ValueError, match="forward failed"):
        f(ctorch.ones(1))
    assert seen == [None]


def test_submodule_lookups_casts_and_containers():
    m = ctorch.nn.Sequential(ctorch.nn.Linear(2, 3), ctorch.nn.BatchNorm1d(3))
    assert m.get_submodule("1") is m[1] and m.get_submodule("") is m
    assert m.get_parameter("0.weight") is m[0].weight
    assert m.get_buffer("1.running_mean") is m[1].running_mean
    with pytest.raises(AttributeError):
        m.get_submodule("2")
    with pytest.raises(AttributeError):
        m.get_parameter("1.running_mean")  # a buffer
    assert m.half()[0].weight.dtype == ctorch.float16
    assert m.bfloat16()[1].running_var.dtype == ctorch.bfloat16
    assert m.type(ctorch.float64)[0].bias.dtype == ctorch.float64
    assert m.type("torch.FloatTensor")[0].bias.dtype == ctorch.float32
    meta = ctorch.nn.Linear(4, 5, device="meta")
    assert meta.to_empty(device="cpu").weight.device.type == "cpu"
    plist = ctorch.nn.ParameterList([ctorch.ones(2), ctorch.nn.Parameter(ctorch.zeros(3))])
    plist.append(ctorch.ones(1))
    assert len(plist) == 3 and isinstance(plist[0], ctorch.nn.Parameter)
    assert [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    pdict = ctorch.nn.ParameterDict({"a": ctorch.ones(2)})
    pdict["b"] = ctorch.zeros(1)
    assert list(pdict) == ["a", "b"] and [n for n, _ in pdict.named_parameters()] == ["a", "b"]
    assert "b" in pdict and pdict.pop("b").shape == (1,) and len(pdict) == 1
    th = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2))])
    assert [n for n, _ in th.named_parameters()] == ["0"]


def test_conv_transpose2d_output_size_picks_the_output_padding():
    th, ct = pair(lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2))
    x = torch.randn(1, 2, 4, 4)
    close(ct(to_ct(x), output_size=[10, 10]), th(x, output_size=[10, 10]))
    with pytest.raises(ValueError):
        ct(to_ct(x), output_size=[12, 12])


@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True), dict(kdim=3, vdim=5), dict(bias=False)],
                         ids=["default", "batch_first", "kdim_vdim", "no_bias"])
def test_multihead_attention_matches_torch(kw):
    th, ct = pair(lambda nn: nn.MultiheadAttention(8, 2, **kw))
    assert [n for n, _ in ct.named_parameters()] == [n for n, _ in th.named_parameters()]
    bf = kw.get("batch_first", False)
    shape = (lambda n, d: (2, n, d)) if bf else (lambda n, d: (n, 2, d))
    q = torch.randn(*shape(4, 8), requires_grad=True)
    k = torch.randn(*shape(6, kw.get("kdim", 8)))
    v = torch.randn(*shape(6, kw.get("vdim", 8)))
    kpm = torch.tensor([[False] * 5 + [True], [False] * 6])
    am = torch.triu(torch.ones(4, 6, dtype=torch.bool), 3)
    out, weights = th(q, k, v, key_padding_mask=kpm, attn_mask=am)
    qc = to_ct(q).requires_grad_()
    out_c, weights_c = ct(qc, to_ct(k), to_ct(v), key_padding_mask=to_ct(kpm), attn_mask=to_ct(am))
    close(out_c, out)
    close(weights_c, weights)
    (out * out).sum().backward()
    (out_c * out_c).sum().backward()
    close(qc.grad, q.grad, rtol=1e-4, atol=1e-5)
    for name, p in ct.named_parameters():
        close(p.grad, dict(th.named_parameters())[name].grad, rtol=1e-4, atol=1e-5)
    per_head, _ = th(q, k, v, need_weights=True, average_attn_weights=False)
    close(ct(qc, to_ct(k), to_ct(v), average_attn_weights=False)[0], per_head)
    assert ct(qc, to_ct(k), to_ct(v), need_weights=False)[1] is None


def test_attention_masks_follow_the_inputs_device():
    m = ctorch.nn.TransformerEncoderLayer(8, 2, 16, device="meta")
    x = ctorch.empty(4, 2, 8, device="meta")
    padding = ctorch.zeros(2, 4, dtype=ctorch.bool, device="meta")
    out = m(x, src_key_padding_mask=padding, is_causal=True)
    assert out.device.type == "meta" and tuple(out.shape) == (4, 2, 8)


@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True, batch_first=True, activation="gelu")],
                         ids=["post_norm", "pre_norm_gelu"])
def test_transformer_matches_torch(kw):
    th, ct = pair(lambda nn: nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw))
    assert [n for n, _ in ct.named_parameters()] == [n for n, _ in th.named_parameters()]
    bf = kw.get("batch_first", False)
    src = torch.randn(*((3, 5, 8) if bf else (5, 3, 8)), requires_grad=True)
    tgt = torch.randn(*((3, 4, 8) if bf else (4, 3, 8)))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    close(to_ct(mask), ctorch.nn.Transformer.generate_square_subsequent_mask(4))
    out = th(src, tgt, tgt_mask=mask)
    src_c = to_ct(src).requires_grad_()
    out_c = ct(src_c, to_ct(tgt), tgt_mask=to_ct(mask))
    close(out_c, out, rtol=1e-4, atol=1e-5)
    out.sum().backward()
    out_c.sum().backward()
    close(src_c.grad, src.grad, rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="batch number"):
        ct(src_c, to_ct(tgt)[:2] if bf else to_ct(tgt)[:, :2])


def test_bilinear_softmax2d_and_triplet_with_distance_match_torch():
    th, ct = pair(lambda nn: nn.Bilinear(3, 4, 2))
    a, b = torch.randn(5, 3, requires_grad=True), torch.randn(5, 4)
    ac = to_ct(a).requires_grad_()
    out, out_c = th(a, b), ct(ac, to_ct(b))
    close(out_c, out)
    out.sum().backward()
    out_c.sum().backward()
    close(ac.grad, a.grad)
    x = torch.randn(2, 3, 4, 5)
    close(ctorch.nn.Softmax2d()(to_ct(x)), torch.nn.Softmax2d()(x))
    anchor, pos, neg = torch.randn(4, 6), torch.randn(4, 6), torch.randn(4, 6)
    for kw in [dict(), dict(swap=True, margin=0.5, reduction="sum")]:
        close(ctorch.nn.TripletMarginWithDistanceLoss(**kw)(to_ct(anchor), to_ct(pos), to_ct(neg)),
              torch.nn.TripletMarginWithDistanceLoss(**kw)(anchor, pos, neg))
    cos = lambda lib: (lambda x, y: 1 - lib.nn.functional.cosine_similarity(x, y))  # noqa: E731
    close(ctorch.nn.functional.triplet_margin_with_distance_loss(to_ct(anchor), to_ct(pos), to_ct(neg),
                                                                distance_function=cos(ctorch)),
          torch.nn.functional.triplet_margin_with_distance_loss(anchor, pos, neg, distance_function=cos(torch)))
    y = to_ct(x).clone()
    ctorch.nn.functional.threshold_(y, 0.0, -1.0)
    close(y, torch.nn.functional.threshold(x, 0.0, -1.0))
    close(ctorch.nn.functional.upsample_bilinear(to_ct(x), scale_factor=2),
          torch.nn.functional.interpolate(x.double(), scale_factor=2, mode="bilinear", align_corners=True).float())
    assert ctorch.nn.functional.Tensor is ctorch.Tensor


def test_gumbel_softmax_samples_and_straight_through_gradient():
    ctorch.manual_seed(0)
    logits = ctorch.tensor([[2.0, 0.0, -2.0]]).expand(4000, 3).contiguous().requires_grad_()
    soft = ctorch.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert close_rows_sum_to_one(soft)
    hard = ctorch.nn.functional.gumbel_softmax(logits, hard=True)
    assert set(hard.detach().unique().tolist()) == {0.0, 1.0} and bool((hard.sum(1) == 1).all())
    freq = hard.detach().mean(0).tolist()  # Gumbel-max draws class k with probability softmax(logits)_k
    want = torch.softmax(torch.tensor([2.0, 0.0, -2.0]), 0).tolist()
    assert all(abs(f - w) < 0.03 for f, w in zip(freq, want)), (freq, want)
    (hard * ctorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0  # through the soft sample


def close_rows_sum_to_one(t):
    return bool(((t.sum(1) - 1).abs() < 1e-5).all())


def test_loss_weight_is_a_buffer():
    loss = ctorch.nn.CrossEntropyLoss(weight=ctorch.ones(3))
    assert list(loss.state_dict()) == ["weight"]


def train_loop(lib, state, x, y, opt_name, steps=5):
    """A torch training loop; run with lib=torch or lib=ctorch (nothing else changes). The conv has
    no bias: before batch norm its gradient is rounding noise, which Adam would scale up to lr."""
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 3))
    model.load_state_dict(state)
    opt = getattr(lib.optim, opt_name)(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with lib.no_grad():
        out = model(x)
    return losses, model.state_dict(), out


@pytest.mark.parametrize("opt_name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_training_loop_runs_by_changing_the_import(opt_name):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1, bias=False), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(64, 16), torch.nn.ReLU(),
                              torch.nn.Linear(16, 3))
    state = ref.state_dict()
    x, y = torch.randn(8, 1, 8, 8), torch.randint(0, 3, (8,))
    th_losses, th_state, th_out = train_loop(torch, state, x, y, opt_name)
    ct_losses, ct_state, ct_out = train_loop(ctorch, {k: to_ct(v) for k, v in state.items()}, to_ct(x), to_ct(y),
                                             opt_name)
    np.testing.assert_allclose(ct_losses, th_losses, rtol=1e-4)
    assert list(ct_state) == list(th_state)
    for k in th_state:
        close(ct_state[k], th_state[k], rtol=1e-3, atol=1e-5)
    close(ct_out, th_out, rtol=1e-3, atol=1e-4)


def test_state_dict_round_trips_through_a_safetensors_file(tmp_path):
    make, shape = MODULES["cnn"]
    ctorch.manual_seed(3)
    model = make(ctorch.nn)
    model(ctorch.randn(*shape))  # running statistics and num_batches_tracked move
    path = str(tmp_path / "model.safetensors")
    ctorch.save_file(model.state_dict(), path)
    ctorch.manual_seed(4)
    other = make(ctorch.nn)
    result = other.load_state_dict(ctorch.load_file(path))
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (k, a), (k2, b) in zip(model.state_dict().items(), other.state_dict().items()):
        assert k == k2 and a.tolist() == b.tolist()
    model.eval(), other.eval()
    x = ctorch.randn(*shape)
    assert model(x).tolist() == other(x).tolist()


def test_state_dict_round_trips_into_torch(tmp_path):
    make, shape = MODULES["cnn"]
    model = make(ctorch.nn)
    th = make(torch.nn)
    th.load_state_dict({k: torch.tensor(np.asarray(v.tolist()), dtype=getattr(torch, str(v.dtype).split(".")[-1]))
                        for k, v in model.state_dict().items()})
    model.eval(), th.eval()
    x = torch.randn(*shape)
    close(model(to_ct(x)), th(x))


class Net(ctorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = ctorch.nn.Linear(3, 2)
        self.blocks = ctorch.nn.ModuleList([ctorch.nn.Linear(2, 2), ctorch.nn.ReLU()])
        self.scale = ctorch.nn.Parameter(ctorch.ones(1))
        self.register_buffer("steps", ctorch.zeros(1))
        self.register_buffer("cache", ctorch.zeros(2), persistent=False)
        self.plain = 5  # not registered

    def forward(self, x):
        x = self.fc(x)
        for b in self.blocks:
            x = b(x)
        return x * self.scale


def test_registration_by_assignment():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "fc.weight", "fc.bias", "blocks.0.weight",
                                                      "blocks.0.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache"]
    assert list(net.state_dict()) == ["scale", "steps", "fc.weight", "fc.bias", "blocks.0.weight", "blocks.0.bias"]
    assert [n for n, _ in net.named_children()] == ["fc", "blocks"]
    assert len(list(net.modules())) == 5
    assert net.plain == 5 and "plain" not in net.state_dict()
    assert isinstance(net.scale, ctorch.nn.Parameter) and isinstance(net.scale, ctorch.Tensor)
    net.fc = None
    assert "fc.weight" not in net.state_dict()
    with pytest.raises(TypeError):
        net.scale = ctorch.ones(1)  # a parameter slot takes a Parameter or None
    del net.blocks
    assert [n for n, _ in net.named_children()] == []  # fc is None: kept as a name, not listed


def test_shared_parameters_are_listed_once():
    lin = ctorch.nn.Linear(2, 2)
    seq = ctorch.nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2


def test_assignment_before_init_is_refused():
    class Bad(ctorch.nn.Module):
        def __init__(self):
            self.w = ctorch.nn.Parameter(ctorch.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_train_eval_reach_every_descendant():
    net = ctorch.nn.Sequential(ctorch.nn.Linear(2, 2), ctorch.nn.Sequential(ctorch.nn.Dropout()))
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_dropout_zeroes_in_training_only():
    d = ctorch.nn.Dropout(0.5)
    x = ctorch.ones(10000)
    y = np.asarray(d(x).tolist())
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    assert 0.45 < (y == 0).mean() < 0.55
    d.eval()
    assert d(x).tolist() == x.tolist()
    with pytest.raises(ValueError):
        ctorch.nn.Dropout(1.5)


def test_zero_grad_set_to_none_and_zeroes():
    lin = ctorch.nn.Linear(3, 2)
    lin(ctorch.randn(4, 3)).sum().backward()
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.tolist() == [[0.0] * 3] * 2
    bn = ctorch.nn.BatchNorm2d(2)
    bn(ctorch.randn(3, 2, 2, 2))
    bn.reset_parameters()
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    assert int(bn.num_batches_tracked.item()) == 0
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


def test_to_casts_floating_parameters_and_buffers():
    net = ctorch.nn.Sequential(ctorch.nn.Linear(3, 2), ctorch.nn.BatchNorm1d(2))
    net.to(ctorch.float64)
    assert all(p.dtype == ctorch.float64 for p in net.parameters())
    assert all(isinstance(p, ctorch.nn.Parameter) and p.requires_grad for p in net.parameters())
    assert net[1].running_mean.dtype == ctorch.float64
    assert net[1].num_batches_tracked.dtype == ctorch.int64
    assert net(ctorch.randn(4, 3, dtype=ctorch.float64)).dtype == ctorch.float64
    with pytest.raises(TypeError):
        net.to(ctorch.int32)


def test_load_state_dict_strict_errors_name_the_keys():
    lin = ctorch.nn.Linear(3, 2)
    sd = lin.state_dict()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        lin.load_state_dict({"weight": sd["weight"]})
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        lin.load_state_dict(dict(sd, extra=ctorch.ones(1)))
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        lin.load_state_dict({"weight": ctorch.ones(2, 4), "bias": sd["bias"]})
    result = lin.load_state_dict({"weight": ctorch.ones(2, 3), "extra": ctorch.ones(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert lin.weight.tolist() == [[1.0] * 3] * 2


def test_load_state_dict_copies_into_the_same_parameters():
    lin = ctorch.nn.Linear(3, 2)
    w = lin.weight
    opt = ctorch.optim.SGD(lin.parameters(), lr=0.1)
    lin.load_state_dict(collections.OrderedDict(weight=ctorch.zeros(2, 3), bias=ctorch.zeros(2)))
    assert lin.weight is w and w.tolist() == [[0.0] * 3] * 2 and w.requires_grad
    lin(ctorch.ones(1, 3)).sum().backward()
    opt.step()  # the optimizer still updates the model's parameters
    np.testing.assert_allclose(lin.weight.tolist(), [[-0.1] * 3] * 2, rtol=1e-6)


def test_default_initialization_matches_torch_bounds():
    ctorch.manual_seed(0)
    lin = ctorch.nn.Linear(400, 300)
    w, b = np.asarray(lin.weight.tolist()), np.asarray(lin.bias.tolist())
    bound = 1 / np.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.02 * bound
    conv = ctorch.nn.Conv2d(8, 16, 3)
    assert np.abs(np.asarray(conv.weight.tolist())).max() <= 1 / np.sqrt(8 * 9)


def test_containers():
    seq = ctorch.nn.Sequential(collections.OrderedDict(a=ctorch.nn.Linear(2, 3), b=ctorch.nn.ReLU()))
    assert len(seq) == 2 and isinstance(seq[-1], ctorch.nn.ReLU) and list(seq.state_dict()) == ["a.weight", "a.bias"]
    assert isinstance(seq[:1], ctorch.nn.Sequential) and len(seq[:1]) == 1
    with pytest.raises(IndexError):
        seq[2]
    ml = ctorch.nn.ModuleList([ctorch.nn.ReLU()])
    ml.append(ctorch.nn.Linear(1, 1))
    ml.insert(0, ctorch.nn.Tanh())
    assert [type(m).__name__ for m in ml] == ["Tanh", "ReLU", "Linear"]
    assert list(ml.state_dict()) == ["2.weight", "2.bias"]
    md = ctorch.nn.ModuleDict({"x": ctorch.nn.Linear(1, 1)})
    assert "x" in md and list(md.state_dict()) == ["x.weight", "x.bias"]


def test_repr_matches_torch():
    make, _ = MODULES["cnn"]
    th, ct = pair(make)
    assert repr(ct) == repr(th)


def test_conv2d_rejects_bad_arguments():
    with pytest.raises(ValueError):
        ctorch.nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError):
        ctorch.nn.Conv2d(2, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError):
        ctorch.nn.Conv2d(2, 4, 3, padding_mode="mirror")


def test_parameter_shares_data_and_requires_grad():
    t = ctorch.zeros(3)
    p = ctorch.nn.Parameter(t)
    assert p.requires_grad and p.is_leaf and not t.requires_grad
    with ctorch.no_grad():
        p.add_(1)
    assert t.tolist() == [1.0, 1.0, 1.0]
    assert not ctorch.nn.Parameter(t, requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:\n")
    with pytest.raises(TypeError):
        ctorch.nn.Parameter([1.0])


# ---------------------------------------------------------------------------------------------------
# The examples in docs/python.md ("Training") and docs/training.md ("Modules: ctorch.nn") run as written

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs")


@pytest.mark.skipif(not os.path.isdir(DOCS), reason="needs the source tree's docs/")
@pytest.mark.parametrize("page,section", [("python.md", "Training"), ("training.md", "Modules: ctorch.nn")])
def test_training_examples_in_the_docs_run(page, section, tmp_path, monkeypatch):
    text = open(os.path.join(DOCS, page)).read()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)  # the examples write a checkpoint in the current directory
    namespace = {"__name__": "docs_example"}
    exec(compile(blocks[0], page, "exec"), namespace)
    model = namespace.get("net") or namespace.get("model")
    assert not model.training
    assert [f.endswith(".safetensors") for f in os.listdir(tmp_path)] == [True]  # the checkpoint it saved


def _grads(module):
    return {n: p.grad for n, p in module.named_parameters()}


@pytest.mark.parametrize("make", [
    lambda nn: nn.LSTM(4, 6),
    lambda nn: nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True),
    lambda nn: nn.LSTM(4, 6, num_layers=2, proj_size=3, bidirectional=True),
    lambda nn: nn.GRU(4, 5, num_layers=2, bias=False),
    lambda nn: nn.GRU(4, 5, bidirectional=True, batch_first=True),
    lambda nn: nn.RNN(4, 5, 2, nonlinearity="relu"),
    lambda nn: nn.RNN(4, 5, nonlinearity="tanh", bidirectional=True),
], ids=["lstm", "lstm_2_bi_batch_first", "lstm_proj", "gru_2_no_bias", "gru_bi", "rnn_relu", "rnn_tanh_bi"])
def test_recurrent_layers_match_torch(make):
    """Outputs, final states and every parameter's gradient, padded and packed (unsorted lengths)."""
    th, ct = pair(make)
    assert list(ct.state_dict()) == list(th.state_dict())
    assert repr(ct) == repr(th)
    bf = th.batch_first
    x = torch.randn(*((3, 5, 4) if bf else (5, 3, 4)), requires_grad=True)
    xc = to_ct(x).requires_grad_()
    out, h = th(x)
    out_c, h_c = ct(xc)
    close(out_c, out, rtol=1e-4, atol=1e-5)
    for a, b in zip(h_c if isinstance(h_c, tuple) else [h_c], h if isinstance(h, tuple) else [h]):
        close(a, b, rtol=1e-4, atol=1e-5)
    (out.pow(2).sum() + sum(t.sum() for t in (h if isinstance(h, tuple) else [h]))).backward()
    (out_c.pow(2).sum() + sum(t.sum() for t in (h_c if isinstance(h_c, tuple) else [h_c]))).backward()
    close(xc.grad, x.grad, rtol=1e-4, atol=1e-5)
    want = _grads(th)
    for name, g in _grads(ct).items():
        close(g, want[name], rtol=1e-4, atol=1e-5)
    # Packed: lengths in no order, initial states given, unpacked back.
    lengths = [3, 5, 2]
    packed = torch.nn.utils.rnn.pack_padded_sequence(x.detach(), lengths, batch_first=bf, enforce_sorted=False)
    packed_c = ctorch.nn.utils.rnn.pack_padded_sequence(to_ct(x), lengths, batch_first=bf, enforce_sorted=False)
    close(packed_c.data, packed.data)
    assert packed_c.batch_sizes.tolist() == packed.batch_sizes.tolist()
    h0 = [torch.randn(*t.shape) for t in (h if isinstance(h, tuple) else [h])]
    hx = tuple(h0) if isinstance(h, tuple) else h0[0]
    hx_c = tuple(to_ct(t) for t in h0) if isinstance(h, tuple) else to_ct(h0[0])
    out, h = th(packed, hx)
    out_c, h_c = ct(packed_c, hx_c)
    padded, lens = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=bf)
    padded_c, lens_c = ctorch.nn.utils.rnn.pad_packed_sequence(out_c, batch_first=bf)
    assert lens_c.tolist() == lens.tolist()
    close(padded_c, padded, rtol=1e-4, atol=1e-5)
    for a, b in zip(h_c if isinstance(h_c, tuple) else [h_c], h if isinstance(h, tuple) else [h]):
        close(a, b, rtol=1e-4, atol=1e-5)


def test_recurrent_layers_unbatched_dropout_and_errors():
    th, ct = pair(lambda nn: nn.LSTM(3, 4, num_layers=2, dropout=0.5))
    x = torch.randn(6, 3)
    th.eval()
    ct.eval()  # no dropout between layers in eval mode
    out, (h, c) = th(x)
    out_c, (h_c, c_c) = ct(to_ct(x))
    assert tuple(out_c.shape) == (6, 4) and tuple(h_c.shape) == (2, 4)
    close(out_c, out, rtol=1e-4, atol=1e-5)
    close(c_c, c, rtol=1e-4, atol=1e-5)
    ct.train()
    ctorch.manual_seed(0)
    a, _ = ct(to_ct(x))
    ctorch.manual_seed(1)
    b, _ = ct(to_ct(x))
    assert not np.allclose(to_np(a), to_np(b))  # dropout between the layers draws
    with pytest.raises(ValueError, match="proj_size"):
        ctorch.nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="2D or 3D"):
        ct(ctorch.zeros(1, 2, 3, 3))
    with pytest.raises(ctorch.ShapeError, match="features"):
        ct(ctorch.zeros(5, 2, 7))
    with pytest.raises(ctorch.ShapeError, match="h_0"):
        ct(ctorch.zeros(5, 2, 3), (ctorch.zeros(2, 3, 4), ctorch.zeros(2, 3, 4)))


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_recurrent_cells_match_torch(kind):
    th, ct = pair(lambda nn: getattr(nn, kind)(4, 3))
    x = torch.randn(2, 4, requires_grad=True)
    xc = to_ct(x).requires_grad_()
    h, h_c = th(x), ct(xc)
    outs, outs_c = (h, h_c) if kind == "LSTMCell" else ((h,), (h_c,))
    for a, b in zip(outs_c, outs):
        close(a, b)
    sum(t.sum() for t in outs).backward()
    sum(t.sum() for t in outs_c).backward()
    close(xc.grad, x.grad)
    for name, g in _grads(ct).items():
        close(g, _grads(th)[name])
    one = th(x[0].detach()), ct(to_ct(x[0]))  # unbatched
    for a, b in zip(one[1] if kind == "LSTMCell" else (one[1],), one[0] if kind == "LSTMCell" else (one[0],)):
        close(a, b)


def test_rnn_utils_pad_and_pack_sequences():
    seqs = [torch.randn(n, 2) for n in (4, 1, 3)]
    seqs_c = [to_ct(s) for s in seqs]
    for bf in (False, True):
        close(ctorch.nn.utils.rnn.pad_sequence(seqs_c, batch_first=bf, padding_value=-1.0),
              torch.nn.utils.rnn.pad_sequence(seqs, batch_first=bf, padding_value=-1.0))
    packed = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    packed_c = ctorch.nn.utils.rnn.pack_sequence(seqs_c, enforce_sorted=False)
    close(packed_c.data, packed.data)
    assert packed_c.sorted_indices.tolist() == packed.sorted_indices.tolist()
    assert packed_c.unsorted_indices.tolist() == packed.unsorted_indices.tolist()
    for a, b in zip(ctorch.nn.utils.rnn.unpack_sequence(packed_c), seqs):
        close(a, b)
    padded, lengths = ctorch.nn.utils.rnn.pad_packed_sequence(packed_c, total_length=6)
    assert tuple(padded.shape) == (6, 3, 2) and lengths.tolist() == [4, 1, 3]
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        ctorch.nn.utils.rnn.pack_sequence(seqs_c)
    with pytest.raises(ValueError, match="total_length"):
        ctorch.nn.utils.rnn.pad_packed_sequence(packed_c, total_length=2)


@pytest.mark.parametrize("options", [dict(add_bias_kv=True), dict(add_zero_attn=True),
                                     dict(add_bias_kv=True, add_zero_attn=True),
                                     dict(kdim=4, vdim=3, add_bias_kv=True)])
def test_multihead_attention_bias_kv_and_zero_attn_match_torch(options):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((5, 2, 8)), rng.standard_normal((6, 2, 8))
    key, value = k[..., :options.get("kdim", 8)], k[..., :options.get("vdim", 8)]
    pad = np.zeros((2, 6), dtype=bool)
    pad[1, 4:] = True
    mask = np.triu(np.ones((5, 6), dtype=bool), 1)
    torch.manual_seed(0)
    reference = torch.nn.MultiheadAttention(8, 2, **options).double()
    module = ctorch.nn.MultiheadAttention(8, 2, **options).double()
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in reference.named_parameters()]
    module.load_state_dict({n: ctorch.tensor(v.detach().numpy()) for n, v in reference.state_dict().items()})
    results = []
    for m, net in ((ctorch, module), (torch, reference)):
        out, weights = net(m.tensor(q), m.tensor(key), m.tensor(value), key_padding_mask=m.tensor(pad),
                           attn_mask=m.tensor(mask), average_attn_weights=False)
        results.append((out.detach().numpy(), weights.detach().numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_multi_head_attention_forward_with_static_keys_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 3, 8)), rng.standard_normal((6, 3, 8))
    static_k, static_v = rng.standard_normal((6, 4, 4)), rng.standard_normal((6, 4, 4))
    torch.manual_seed(1)
    weights = [p.detach().numpy() for p in torch.nn.MultiheadAttention(8, 2).double().parameters()]
    results = []
    for m in (ctorch, torch):
        w_in, b_in, w_out, b_out = (m.tensor(a) for a in weights)
        out, attn = m.nn.functional.multi_head_attention_forward(
            m.tensor(q), m.tensor(k), m.tensor(k), 8, 2, w_in, b_in, None, None, False, 0.0, w_out, b_out,
            training=False, static_k=m.tensor(static_k), static_v=m.tensor(static_v))
        results.append((out.numpy(), attn.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="is_causal"):
        ctorch.nn.functional.multi_head_attention_forward(
            ctorch.tensor(q), ctorch.tensor(k), ctorch.tensor(k), 8, 2, *(ctorch.tensor(a) for a in weights[:2]),
            None, None, False, 0.0, *(ctorch.tensor(a) for a in weights[2:]), is_causal=True)
