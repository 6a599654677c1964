"""torch.nn.functional's Python-defined functions (the Lp pools, local response norm, channel shuffle,
the alpha dropouts, rrelu, the multi-class margin losses, embedding_bag) and their modules, with
CrossMapLRN2d, SyncBatchNorm and Container: values and gradients against torch, and the random ones
by their distributions."""

import numpy as np
import pytest

ctorch = pytest.importorskip("ctorch")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal((2, 6, 5, 4))
X3 = RNG.standard_normal((2, 6, 7))
XM = RNG.standard_normal((4, 5))
TARGETS = np.array([1, 0, 4, 2])
LABELS = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4], [4, 4, -1, 0, 0]])
TABLE = RNG.standard_normal((10, 4))
WORDS = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0])
STARTS = np.array([0, 4, 4, 7])  # bags [0, 4), [4, 4) (empty), [4, 7) and [7, 9)
CSR = np.array([0, 4, 4, 9])  # include_last_offset: the last offset ends the last bag
WEIGHTS = RNG.random(9)

CASES = {
    "lp_pool1d": (lambda m, x: m.nn.functional.lp_pool1d(x, 2.0, 3), [X3]),
    "lp_pool1d_stride_p3": (lambda m, x: m.nn.functional.lp_pool1d(x.abs() + 0.1, 3, 2, 1), [X3]),
    "lp_pool2d_ceil": (lambda m, x: m.nn.functional.lp_pool2d(x, 2, (2, 3), ceil_mode=True), [X4]),
    "LPPool2d_p1": (lambda m, x: m.nn.LPPool2d(1, 2)(x), [X4]),
    "LPPool1d": (lambda m, x: m.nn.LPPool1d(2, 2)(x), [X3]),
    "local_response_norm_4d": (lambda m, x: m.nn.functional.local_response_norm(x, 3), [X4]),
    "LocalResponseNorm_3d_even": (lambda m, x: m.nn.LocalResponseNorm(4, 1e-2, 0.5, 2.0)(x), [X3]),
    "channel_shuffle": (lambda m, x: m.nn.ChannelShuffle(3)(x.detach()), [X4]),  # torch 1.13: no derivative
    "native_channel_shuffle": (lambda m, x: m.nn.functional.native_channel_shuffle(x.detach(), 2), [X3]),
    "alpha_dropout_eval": (lambda m, x: m.nn.AlphaDropout(0.3).eval()(x), [X3]),
    "feature_alpha_dropout_p0": (lambda m, x: m.nn.functional.feature_alpha_dropout(x, 0.0, True), [X3]),
    "alpha_dropout_p1": (lambda m, x: m.nn.functional.alpha_dropout(x, 1.0, True), [X3]),
    "rrelu_eval": (lambda m, x: m.nn.RReLU(0.1, 0.3).eval()(x), [X3]),
    "BatchNorm3d": (lambda m, x: m.nn.BatchNorm3d(2).double()(x.reshape(2, 2, 3, 5, 4)), [X4]),
    "multi_margin_loss": (lambda m, x, y: m.nn.functional.multi_margin_loss(x, y), [XM, TARGETS]),
    "MultiMarginLoss_p2_weight": (lambda m, x, y, w: m.nn.MultiMarginLoss(p=2, margin=0.5, weight=w.detach(),
                                                                           reduction="none")(x, y),
                                  [XM, TARGETS, np.arange(1.0, 6.0)]),
    "multi_margin_loss_1d": (lambda m, x, y: m.nn.functional.multi_margin_loss(x[0], y[:1], reduction="sum"),
                             [XM, TARGETS]),
    "multilabel_margin_loss": (lambda m, x, y: m.nn.functional.multilabel_margin_loss(x, y, reduction="none"),
                               [XM, LABELS]),
    "MultiLabelMarginLoss": (lambda m, x, y: m.nn.MultiLabelMarginLoss()(x, y), [XM, LABELS]),
    "multilabel_margin_loss_1d": (lambda m, x, y: m.nn.functional.multilabel_margin_loss(x[0], y[0]), [XM, LABELS]),
    "embedding_bag_mean": (lambda m, i, w, o: m.nn.functional.embedding_bag(i, w, o), [WORDS, TABLE, STARTS]),
    "embedding_bag_sum_padding": (lambda m, i, w, o: m.nn.functional.embedding_bag(i, w, o, mode="sum", padding_idx=4),
                                  [WORDS, TABLE, STARTS]),
    "embedding_bag_max": (lambda m, i, w, o: m.nn.functional.embedding_bag(i, w, o, mode="max"), [WORDS, TABLE, STARTS]),
    "embedding_bag_csr_mean_padding": (lambda m, i, w, o: m.nn.functional.embedding_bag(
        i, w, o, include_last_offset=True, padding_idx=2), [WORDS, TABLE, CSR]),
    "embedding_bag_2d_max": (lambda m, i, w: m.nn.functional.embedding_bag(i.reshape(3, 3), w, mode="max"),
                             [WORDS, TABLE]),
    "embedding_bag_per_sample_weights": (lambda m, i, w, o, p: m.nn.functional.embedding_bag(
        i, w, o, mode="sum", per_sample_weights=p), [WORDS, TABLE, STARTS, WEIGHTS]),
    "EmbeddingBag_from_pretrained": (lambda m, i, w, o: m.nn.EmbeddingBag.from_pretrained(w, freeze=False)(i, o),
                                     [WORDS, TABLE, STARTS]),
    "CrossMapLRN2d_3": (lambda m, x: m.nn.CrossMapLRN2d(3, 1e-2, 0.75, 1.0)(x), [X4]),
    "CrossMapLRN2d_2": (lambda m, x: m.nn.CrossMapLRN2d(2, 1e-1, 0.5, 2.0)(x), [X4]),
    "CrossMapLRN2d_5": (lambda m, x: m.nn.CrossMapLRN2d(5)(x), [X4]),
}

ERRORS = {
    "local_response_norm_2d": (lambda m, x: m.nn.functional.local_response_norm(x[0], 3), [X3]),
    "channel_shuffle_indivisible": (lambda m, x: m.nn.functional.channel_shuffle(x, 4), [X4]),
    "channel_shuffle_2d": (lambda m, x: m.nn.functional.channel_shuffle(x[0, 0], 1), [X4]),
    "alpha_dropout_p": (lambda m, x: m.nn.functional.alpha_dropout(x, 1.5, True), [X3]),
    "multi_margin_loss_p3": (lambda m, x, y: m.nn.functional.multi_margin_loss(x, y, p=3), [XM, TARGETS]),
    "embedding_bag_weights_mean": (lambda m, i, w, o, p: m.nn.functional.embedding_bag(i, w, o, per_sample_weights=p),
                                   [WORDS, TABLE, STARTS, WEIGHTS]),
    "embedding_bag_offsets_start": (lambda m, i, w: m.nn.functional.embedding_bag(i, w, m.tensor([1, 4])),
                                    [WORDS, TABLE]),
    "embedding_bag_3d": (lambda m, i, w: m.nn.functional.embedding_bag(i.reshape(1, 3, 3), w), [WORDS, TABLE]),
    "CrossMapLRN2d_3d": (lambda m, x: m.nn.CrossMapLRN2d(3)(x), [X3]),
}


def _inputs(m, arrays):
    return [m.tensor(a, requires_grad=a.dtype.kind == "f") if a.dtype.kind == "f" else m.tensor(a) for a in arrays]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_with_gradients(name):
    fn, arrays = CASES[name]
    results = []
    for m in (ctorch, torch):
        inputs = _inputs(m, arrays)
        out = fn(m, *inputs)
        floats = [t for t in inputs if t.requires_grad]
        grads = m.autograd.grad(out.sum(), floats, allow_unused=True) if out.requires_grad else [None] * len(floats)
        results.append((out.detach().numpy(), [None if g is None else g.numpy() for g in grads]))
    (out, grads), (ref, ref_grads) = results
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-9)
    for g, r in zip(grads, ref_grads):
        if r is None:
            assert g is None or not g.any()
        else:
            np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_raises_where_torch_raises(name):
    fn, arrays = ERRORS[name]
    with pytest.raises((RuntimeError, ValueError, AssertionError)):
        fn(torch, *_inputs(torch, arrays))
    with pytest.raises((RuntimeError, ValueError, AssertionError)):
        fn(ctorch, *_inputs(ctorch, arrays))


def test_alpha_dropout_keeps_mean_and_variance_of_a_standard_input():
    ctorch.manual_seed(0)
    x = ctorch.randn(400_000, dtype=ctorch.float64)
    for fn in (ctorch.nn.functional.alpha_dropout, ctorch.nn.functional.feature_alpha_dropout):
        y = fn(x.reshape(1000, 400), 0.2, True)
        assert abs(y.mean().item()) < 0.01 and abs(y.var().item() - 1) < 0.02
    y = ctorch.nn.functional.feature_alpha_dropout(ctorch.ones(50, 8, 3, dtype=ctorch.float64), 0.5, True)
    per_channel = y.reshape(400, 3)
    assert bool((per_channel == per_channel[:, :1]).all())  # one draw per channel


def test_rrelu_in_training_draws_slopes_between_its_bounds():
    ctorch.manual_seed(0)
    x = -ctorch.ones(10_000, dtype=ctorch.float64)
    y = ctorch.nn.RReLU(0.1, 0.3)(x)  # a new module trains
    slopes = -y
    assert slopes.min().item() >= 0.1 and slopes.max().item() <= 0.3
    assert abs(slopes.mean().item() - 0.2) < 0.005
    pos = ctorch.ones(3)
    assert ctorch.nn.functional.rrelu(pos, training=True).tolist() == [1.0, 1.0, 1.0]
    z = -ctorch.ones(4)
    ctorch.nn.functional.rrelu_(z, 0.25, 0.25, True)
    assert z.tolist() == [-0.25] * 4


def test_embedding_max_norm_renormalizes_the_rows_looked_up():
    results = []
    for m in (ctorch, torch):
        table = m.tensor(TABLE * 3)
        out = m.nn.functional.embedding_bag(m.tensor(WORDS), table, m.tensor(STARTS), max_norm=1.0)
        looked_up = m.nn.functional.embedding(m.tensor([0, 7]), table, max_norm=1.5)
        results.append((out.numpy(), looked_up.numpy(), table.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sync_batch_norm_without_a_process_group_is_batch_norm():
    # torch 1.13 refuses a CPU input in training; current torch (and ctorch) normalizes with the
    # local batch when no process group is initialized (test_distributed runs it on two ranks).
    x = X4.reshape(2, 6, 20)
    reference = torch.nn.BatchNorm1d(6).double()(torch.tensor(x))
    sync = ctorch.nn.SyncBatchNorm(6).double()
    np.testing.assert_allclose(sync(ctorch.tensor(x)).detach().numpy(), reference.detach().numpy(), rtol=1e-12)
    assert int(sync.num_batches_tracked) == 1
    with pytest.raises(ValueError):
        sync(ctorch.ones(3))
    net = ctorch.nn.Sequential(ctorch.nn.Conv2d(3, 4, 3), ctorch.nn.BatchNorm2d(4))
    converted = ctorch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(converted[1]) is ctorch.nn.SyncBatchNorm and converted[1].weight is net[1].weight


def test_container_holds_its_keyword_modules():
    with pytest.warns(UserWarning, match="deprecated"):
        c = ctorch.nn.Container(a=ctorch.nn.Linear(2, 2), b=ctorch.nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"] and len(list(c.parameters())) == 2


CTC_STEPS, CTC_BATCH, CTC_CLASSES = 12, 3, 5
CTC_LOGITS = RNG.standard_normal((CTC_STEPS, CTC_BATCH, CTC_CLASSES))
CTC_TARGETS = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 4]])  # padded; 2 2 needs a blank between
CTC_CONCATENATED = np.array([1, 2, 2, 3, 1, 4, 4, 4, 4])


def _ctc_run(m, logits, targets, input_lengths, target_lengths, through_softmax=False, **kw):
    x = m.tensor(logits, requires_grad=True)
    log_probs = x.log_softmax(2) if through_softmax else m.tensor(logits).log_softmax(2).requires_grad_()
    leaf = x if through_softmax else log_probs
    loss = m.nn.functional.ctc_loss(log_probs, m.tensor(targets), input_lengths, target_lengths, **kw)
    loss.sum().backward()
    return loss.detach().numpy(), leaf.grad.numpy()


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_and_its_gradient_match_torch(reduction, zero_infinity):
    for args in [(CTC_TARGETS, (12, 9, 10), (3, 2, 4)),  # every alignment possible
                 (CTC_CONCATENATED, [12, 9, 5], [3, 2, 4])]:  # 4 4 4 4 in 5 steps is impossible: an infinite loss
        if not zero_infinity and args[1][2] == 5:
            continue  # torch's gradient of an infinite loss is NaN; zero_infinity is how to train with one
        got = _ctc_run(ctorch, CTC_LOGITS, *args, reduction=reduction, zero_infinity=zero_infinity)
        want = _ctc_run(torch, CTC_LOGITS, *args, reduction=reduction, zero_infinity=zero_infinity)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_ctc_loss_through_log_softmax_unbatched_and_module():
    got = _ctc_run(ctorch, CTC_LOGITS, CTC_TARGETS, [12, 9, 10], [3, 2, 4], through_softmax=True)
    want = _ctc_run(torch, CTC_LOGITS, CTC_TARGETS, [12, 9, 10], [3, 2, 4], through_softmax=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
    losses = []
    for m in (ctorch, torch):
        lp = m.tensor(CTC_LOGITS[:, 0]).log_softmax(1)
        losses.append(float(m.nn.CTCLoss(blank=4)(lp, m.tensor([1, 2, 1]), (12,), (3,))))
        losses.append(float(m.ctc_loss(lp.unsqueeze(1), m.tensor([[1, 2, 1]]), [12], [3], 4, 2, False)))
    np.testing.assert_allclose(losses[:2], losses[2:], rtol=1e-12)
    lp = ctorch.tensor(CTC_LOGITS).log_softmax(2)
    with pytest.raises(RuntimeError, match="input_lengths"):
        ctorch.nn.functional.ctc_loss(lp, ctorch.tensor(CTC_TARGETS), [13, 9, 10], [3, 2, 4])
    with pytest.raises(RuntimeError, match="blank"):
        ctorch.nn.functional.ctc_loss(lp, ctorch.tensor(CTC_TARGETS), [12, 9, 10], [3, 2, 4], blank=5)


FRACTIONAL = [(2, (2, 3, 9, 11), 3, dict(output_size=(4, 5))), (2, (3, 10, 7), (2, 3), dict(output_ratio=0.5)),
              (3, (2, 2, 7, 8, 9), 2, dict(output_size=(3, 4, 5))), (2, (1, 1, 5, 5), 2, dict(output_size=1))]


@pytest.mark.parametrize("dims,shape,kernel,size", FRACTIONAL)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fractional_max_pool_matches_torch_given_the_samples(dims, shape, kernel, size, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    batch = 1 if len(shape) == dims + 1 else shape[0]
    samples = RNG.random((batch, shape[-dims - 1], dims)).astype(dtype)  # torch's order: W, H (2-D); D, H, W
    results = []
    for m in (ctorch, torch):
        xt = m.tensor(x, requires_grad=True)
        pool = getattr(m.nn.functional, f"fractional_max_pool{dims}d")
        values, indices = pool(xt, kernel, return_indices=True, _random_samples=m.tensor(samples), **size)
        (values * values).sum().backward()
        results.append((values.detach().numpy(), indices.numpy(), xt.grad.numpy()))
    for got, want in zip(*results):
        np.testing.assert_array_equal(got, want)  # the same windows, in the input's dtype: bit for bit


def test_fractional_max_pool_modules_draw_their_samples():
    pool = ctorch.nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True)
    values, indices = pool(ctorch.randn(2, 3, 10, 12))
    assert values.shape == indices.shape == (2, 3, 5, 6)
    assert ctorch.nn.FractionalMaxPool3d(2, output_size=3)(ctorch.randn(1, 2, 6, 6, 6)).shape == (1, 2, 3, 3, 3)
    with pytest.raises(ValueError):
        ctorch.nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError):
        ctorch.nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(RuntimeError, match="too large"):
        ctorch.nn.functional.fractional_max_pool2d(ctorch.randn(1, 1, 4, 4), 3, output_size=3)


def test_adaptive_log_softmax_with_loss_matches_torch():
    torch.manual_seed(0)
    reference = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10, 15], div_value=2.0, head_bias=True).double()
    module = ctorch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10, 15], div_value=2.0, head_bias=True).double()
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in reference.named_parameters()]
    module.load_state_dict({k: ctorch.tensor(v.detach().numpy()) for k, v in reference.state_dict().items()})
    x = RNG.standard_normal((7, 16))
    y = np.array([0, 3, 5, 12, 19, 9, 16])  # the head's shortlist and all three clusters
    results = []
    for m, net in ((ctorch, module), (torch, reference)):
        xt = m.tensor(x, requires_grad=True)
        out = net(xt, m.tensor(y))
        out.loss.backward()
        single = net(xt[0].detach(), m.tensor(y[0])).output
        results.append([out.output.detach().numpy(), out.loss.detach().numpy(), xt.grad.numpy(),
                        net.log_prob(xt).detach().numpy(), net.predict(xt).numpy(), single.detach().numpy()]
                       + [p.grad.numpy() for p in net.parameters()])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="Target values"):
        module(ctorch.tensor(x), ctorch.tensor([0, 1, 2, 3, 4, 5, 20]))
    with pytest.raises(ValueError):
        ctorch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [10, 4])
