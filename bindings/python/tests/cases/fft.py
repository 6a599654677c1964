"""Differential cases of torch.fft (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D and n-D forms,
fftfreq, rfftfreq, fftshift, ifftshift) and of the transforms they are made of (_fft_c2c, _fft_r2c,
_fft_c2r), against torch's values and refusals: lengths with small and large prime factors, n
padding and trimming, every norm, dims and s in each spelling, strided and batched inputs, integer
inputs, empty and 0-dim ones. A transform sums its input in another order than torch's, so single
precision results are compared within 2e-5 relative and 2e-4 absolute (inputs are at most 8)."""

from difftest import Case, In

SINGLE = (2e-5, 2e-4)


def _tol(*dtypes):
    return SINGLE if any(d in ("float32", "complex64", "int64") for d in dtypes) else (None, None)


def _fft(name):
    return lambda m: getattr(m.fft, name)


def one_dim_cases(name):
    """fft, ifft, rfft, ihfft (real or complex input of n points) and irfft, hfft (a half spectrum)."""
    f = _fft(name)
    real_only = name in ("rfft", "ihfft")
    half_input = name in ("irfft", "hfft")
    base = "float64" if real_only else "complex128"
    single = "float32" if real_only else "complex64"
    cs = []
    for n in (1, 2, 5, 8, 12, 67, 105):
        cs.append(Case(f"n{n}", lambda m, a, f=f: f(m)(a), [In((n,), base)]))
    cs += [
        Case("single", lambda m, a: f(m)(a), [In((3, 16), single)], tol=_tol(single)),
        Case("float64_input", lambda m, a: f(m)(a), [In((7,), "float64")]),
        Case("int64_input", lambda m, a: f(m)(a), [In((6,), "int64")], tol=_tol("int64")),
        Case("pad", lambda m, a: f(m)(a, 11), [In((2, 6), base)]),
        Case("trim", lambda m, a: f(m)(a, 4), [In((2, 9), base)]),
        Case("dim0", lambda m, a: f(m)(a, dim=0), [In((5, 3), base)]),
        Case("dim_neg2", lambda m, a: f(m)(a, None, -2), [In((2, 6, 3), base)]),
        Case("strided", lambda m, a: f(m)(a, dim=0), [In((6, 4), base, layout="T")]),
        Case("step", lambda m, a: f(m)(a), [In((3, 5), base, layout="step")]),
        Case("expand", lambda m, a: f(m)(a), [In((3, 5), base, layout="expand")]),
        Case("empty_batch", lambda m, a: f(m)(a), [In((0, 4), base)]),
        Case("n_zero", lambda m, a: f(m)(a, 0), [In((4,), base)]),
        Case("bad_dim", lambda m, a: f(m)(a, dim=2), [In((4, 3), base)]),
        Case("bad_norm", lambda m, a: f(m)(a, norm="half"), [In((4,), base)]),
        Case("float16", lambda m, a: f(m)(a), [In((4,), "float16")]),
    ]
    for norm in ("backward", "forward", "ortho"):
        cs.append(Case(f"norm_{norm}", lambda m, a, norm=norm: f(m)(a, norm=norm), [In((2, 10), base)]))
    if real_only:
        cs.append(Case("complex_input", lambda m, a: f(m)(a), [In((4,), "complex64")]))
    if half_input:
        cs += [
            Case("odd_n", lambda m, a: f(m)(a, 9), [In((3, 5), base)]),
            Case("one_point", lambda m, a: f(m)(a), [In((1,), base)]),  # 2 * (1 - 1) = 0 points
            Case("real_input", lambda m, a: f(m)(a), [In((3, 5), "float64")]),
        ]
    cs.append(Case("0dim", lambda m, a: f(m)(a), [In((), base)]))
    return cs


def two_dim_cases(name):
    f = _fft(name + "2")
    base = "float64" if name in ("rfft", "ihfft") else "complex128"
    single = "float32" if name in ("rfft", "ihfft") else "complex64"
    return [
        Case("default", lambda m, a: f(m)(a), [In((3, 4, 6), base)]),
        Case("s", lambda m, a: f(m)(a, (5, 7)), [In((4, 6), base)]),
        Case("s_minus_one", lambda m, a: f(m)(a, (-1, 5)), [In((4, 6), base)]),
        Case("dim", lambda m, a: f(m)(a, dim=(0, 2)), [In((3, 2, 4), base)]),
        Case("dim_reversed", lambda m, a: f(m)(a, dim=(1, 0)), [In((4, 6), base)]),
        Case("ortho", lambda m, a: f(m)(a, norm="ortho"), [In((4, 6), base)]),
        Case("forward", lambda m, a: f(m)(a, norm="forward"), [In((4, 6), base)]),
        Case("strided", lambda m, a: f(m)(a), [In((5, 6), base, layout="T")]),
        Case("dim_repeated", lambda m, a: f(m)(a, dim=(0, 0)), [In((4, 6), base)]),
        Case("s_dim_lengths", lambda m, a: f(m)(a, (4,), (0, 1)), [In((4, 6), base)]),
        Case("one_dim_input", lambda m, a: f(m)(a), [In((6,), base)]),
        Case("single", lambda m, a: f(m)(a), [In((3, 4), single)], tol=_tol(single)),
        Case("int64", lambda m, a: f(m)(a), [In((3, 4), "int64")], tol=_tol("int64")),
        Case("empty_batch", lambda m, a: f(m)(a), [In((0, 3, 4), base)]),
        Case("0dim", lambda m, a: f(m)(a), [In((), base)]),
    ]


def n_dim_cases(name):
    f = _fft(name + "n")
    base = "float64" if name in ("rfft", "ihfft") else "complex128"
    single = "float32" if name in ("rfft", "ihfft") else "complex64"
    cs = [
        Case("all_dims", lambda m, a: f(m)(a), [In((3, 4, 6), base)]),
        Case("single", lambda m, a: f(m)(a), [In((3, 4, 6), single)], tol=_tol(single)),
        Case("s_only", lambda m, a: f(m)(a, (5, 7)), [In((2, 4, 6), base)]),
        Case("dim_only", lambda m, a: f(m)(a, dim=(2, 0)), [In((3, 2, 5), base)]),
        Case("dim_int", lambda m, a: f(m)(a, dim=1), [In((3, 6), base)]),
        Case("s_and_dim", lambda m, a: f(m)(a, (3, 8), (0, 2)), [In((3, 2, 5), base)]),
        Case("ortho", lambda m, a: f(m)(a, norm="ortho"), [In((4, 6), base)]),
        Case("forward", lambda m, a: f(m)(a, norm="forward"), [In((4, 6), base)]),
        Case("s_too_long", lambda m, a: f(m)(a, (2, 3, 4)), [In((4, 6), base)]),
        Case("s_zero", lambda m, a: f(m)(a, (0, 3)), [In((4, 6), base)]),
        Case("strided", lambda m, a: f(m)(a), [In((5, 6), base, layout="step")]),
        Case("int64", lambda m, a: f(m)(a), [In((3, 4), "int64")], tol=_tol("int64")),
        Case("empty_batch", lambda m, a: f(m)(a, dim=(1, 2)), [In((0, 3, 4), base)]),
        Case("0dim", lambda m, a: f(m)(a, dim=(0,)), [In((), base)]),
    ]
    # No dims: fftn and ifftn copy their input (torch 1.13 returns uninitialized memory); the others
    # must transform one.
    copy = (lambda m, a: a.clone()) if name in ("fft", "ifft") else None
    cs.append(Case("no_dims", lambda m, a: f(m)(a, dim=()), [In((3, 4), base)], torch_fn=copy))
    return cs


def freq_cases(name):
    f = _fft(name)
    return [
        Case("n8", lambda m: f(m)(8)),
        Case("n7_d", lambda m: f(m)(7, 0.25)),
        Case("n1", lambda m: f(m)(1)),
        Case("n0", lambda m: f(m)(0)),
        Case("float64", lambda m: f(m)(9, 2.0, dtype=m.float64)),
        Case("negative", lambda m: f(m)(-1)),
        Case("very_negative", lambda m: f(m)(-4)),
        Case("int_dtype", lambda m: f(m)(4, dtype=m.int64)),
    ]


def shift_cases(name):
    f = _fft(name)
    return [
        Case("all_dims", lambda m, a: f(m)(a), [In((3, 4, 5), "float32")]),
        Case("dim_int", lambda m, a: f(m)(a, 1), [In((3, 5), "int64")]),
        Case("dims", lambda m, a: f(m)(a, dim=(0, -1)), [In((3, 4, 5), "complex64")]),
        Case("odd", lambda m, a: f(m)(a), [In((7,), "float64")]),
        Case("0dim", lambda m, a: f(m)(a), [In((), "float32")]),
        Case("empty", lambda m, a: f(m)(a), [In((0, 3), "float32")]),
        Case("strided", lambda m, a: f(m)(a), [In((3, 4), "float64", layout="T")]),
        Case("bad_dim", lambda m, a: f(m)(a, 3), [In((3, 4), "float32")]),
    ]


def _aten(name):
    return lambda m: getattr(m.ops.aten if m.__name__ == "torch" else m.ops, name)


def c2c_cases():
    f = _aten("_fft_c2c")
    return [
        Case("forward", lambda m, a: f(m)(a, [1], 0, True), [In((3, 8), "complex128")]),
        Case("inverse_by_n", lambda m, a: f(m)(a, [0, 1], 2, False), [In((3, 8), "complex128")]),
        Case("by_root_n", lambda m, a: f(m)(a, [2], 1, True), [In((2, 3, 5), "complex64")], tol=SINGLE),
        # torch 1.13 returns uninitialized memory for no dims; ctorch copies its input.
        Case("no_dims", lambda m, a: f(m)(a, [], 0, True), [In((3,), "complex128")],
             torch_fn=lambda m, a: a.clone()),
        Case("real_input", lambda m, a: f(m)(a, [0], 0, True), [In((3,), "float64")]),
        Case("strided", lambda m, a: f(m)(a, [0, 1], 0, False), [In((4, 3), "complex128", layout="T")]),
        Case("empty", lambda m, a: f(m)(a, [1], 0, True), [In((0, 4), "complex64")]),
        Case("0dim", lambda m, a: f(m)(a, [0], 0, True), [In((), "complex128")]),
    ]


def r2c_cases():
    f = _aten("_fft_r2c")
    return [
        Case("onesided", lambda m, a: f(m)(a, [1], 0, True), [In((3, 8), "float64")]),
        Case("twosided", lambda m, a: f(m)(a, [0, 1], 2, False), [In((3, 7), "float64")]),
        Case("strided", lambda m, a: f(m)(a, [0], 1, True), [In((6, 3), "float64", layout="T")]),
        Case("complex_input", lambda m, a: f(m)(a, [0], 0, True), [In((3,), "complex64")]),
        Case("float32", lambda m, a: f(m)(a, [1], 0, True), [In((2, 6), "float32")], tol=SINGLE),
        Case("empty", lambda m, a: f(m)(a, [1], 0, True), [In((0, 4), "float64")]),
        Case("0dim", lambda m, a: f(m)(a, [0], 0, True), [In((), "float64")]),
    ]


def c2r_cases():
    f = _aten("_fft_c2r")
    return [
        Case("even", lambda m, a: f(m)(a, [1], 2, 8), [In((3, 5), "complex128")]),
        Case("odd", lambda m, a: f(m)(a, [0, 1], 0, 9), [In((2, 5), "complex128")]),
        Case("by_root_n", lambda m, a: f(m)(a, [0], 1, 6), [In((4, 2), "complex128")]),
        Case("real_input", lambda m, a: f(m)(a, [0], 0, 4), [In((3,), "float64")]),
        Case("complex64", lambda m, a: f(m)(a, [1], 0, 6), [In((2, 4), "complex64")], tol=SINGLE),
        Case("strided", lambda m, a: f(m)(a, [0], 0, 6), [In((4, 3), "complex128", layout="T")]),
        Case("empty", lambda m, a: f(m)(a, [1], 0, 4), [In((0, 3), "complex128")]),
        Case("0dim", lambda m, a: f(m)(a, [0], 0, 1), [In((), "complex128")]),
    ]


CASES = {"_fft_c2c": c2c_cases(), "_fft_r2c": r2c_cases(), "_fft_c2r": c2r_cases()}
for _kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    CASES["fft_" + _kind] = one_dim_cases(_kind)
    CASES["fft_" + _kind + "2"] = two_dim_cases(_kind)
    CASES["fft_" + _kind + "n"] = n_dim_cases(_kind)
for _name in ("fftfreq", "rfftfreq"):
    CASES["fft_" + _name] = freq_cases(_name)
for _name in ("fftshift", "ifftshift"):
    CASES["fft_" + _name] = shift_cases(_name)


def _grads(op):
    """The value of op and the gradients of sum |y|^2 for every input."""
    def fn(m, *ts):
        ts = [t.detach().requires_grad_() for t in ts]
        y = op(m, *ts)
        (y * y.conj()).real.sum().backward() if y.is_complex() else (y * y).sum().backward()
        return tuple([y.detach()] + [t.grad for t in ts])
    return fn


def _hann(m, x, n=16):
    """A float64 Hann window on x's device (the meta cases run on meta tensors)."""
    return m.hann_window(n, dtype=m.float64, device=x.device)


def _hamming(m, x):
    """A Hamming window (no zero at its ends: stft without centering inverts) on x's device."""
    return m.hamming_window(8, dtype=m.float64, device=x.device)


def stft_cases():
    """torch.stft: windows shorter than n_fft, centering and its pad modes, the normalizations, one-
    and two-sided spectra, complex signals and windows, batches, the real view, gradients, and the
    refusals torch gives."""
    def spec(**kw):
        return lambda m, x: m.stft(x, 16, **{"return_complex": True, **kw})
    cs = [
        Case("defaults", spec(), [In((100,), "float64")]),
        Case("hann_batched", lambda m, x: m.stft(x, 16, 4, window=_hann(m, x), return_complex=True),
             [In((2, 100), "float64")]),
        Case("short_window", lambda m, x: m.stft(x, 16, 4, 10, _hann(m, x, 10), return_complex=True),
             [In((64,), "float64")]),
        Case("short_no_window", spec(hop_length=3, win_length=9), [In((64,), "float64")]),
        Case("not_centered", spec(center=False), [In((2, 50), "float64")]),
        Case("pad_constant", spec(pad_mode="constant"), [In((40,), "float64")]),
        Case("pad_replicate", spec(pad_mode="replicate"), [In((40,), "float64")]),
        Case("pad_circular", spec(pad_mode="circular"), [In((40,), "float64")]),
        Case("normalized", spec(normalized=True), [In((40,), "float64")]),
        Case("two_sided", spec(onesided=False), [In((40,), "float64")]),
        Case("odd_n_fft", lambda m, x: m.stft(x, 15, 5, return_complex=True), [In((2, 45), "float64")]),
        Case("complex_signal", lambda m, x: m.stft(x, 16, 4), [In((40,), "complex128")]),
        Case("complex_window",
             lambda m, x: m.stft(x, 8, 2, window=m.ones(8, dtype=m.complex128, device=x.device) * (1 + 1j)),
             [In((40,), "float64")]),
        Case("real_view", spec(return_complex=False), [In((40,), "float64")]),
        Case("float32", lambda m, x: m.stft(x, 16, 4, window=m.hann_window(16, device=x.device), return_complex=True),
             [In((2, 64), "float32")], tol=SINGLE),
        Case("method", lambda m, x: x.stft(8, 2, return_complex=True), [In((30,), "float64")]),
        Case("window_input", lambda m, x, w: m.stft(x, 16, 4, window=w, return_complex=True),
             [In((3, 50), "float64"), In((16,), "float64")]),
        Case("step", spec(), [In((3, 40), "float64", layout="step")]),
        Case("transposed", spec(), [In((40, 2), "float64", layout="T")]),
        Case("empty_batch", spec(), [In((0, 40), "float64")]),
        Case("0dim", spec(), [In((), "float64")]),
        Case("grad", _grads(lambda m, x: m.stft(x, 16, 4, window=_hann(m, x), return_complex=True)),
             [In((2, 50), "float64")]),
        Case("grad_complex", _grads(lambda m, x: m.stft(x, 8, 3, center=False)), [In((30,), "complex128")]),
        # torch 2.x refuses a real signal without return_complex; torch 1.13 (the reference here)
        # only warned, so a refusal of its own stands in.
        Case("no_return_complex", lambda m, x: m.stft(x, 16), [In((100,), "float64")],
             torch_fn=lambda m, x: m.stft(x, 0, return_complex=True)),
        Case("n_fft_too_long", spec(center=False), [In((10,), "float64")]),
        Case("bad_window",
             lambda m, x: m.stft(x, 16, window=m.ones(12, dtype=m.float64, device=x.device), return_complex=True),
             [In((40,), "float64")]),
        Case("hop_zero", spec(hop_length=0), [In((40,), "float64")]),
        Case("long_window", spec(win_length=20), [In((40,), "float64")]),
        Case("3d", spec(), [In((2, 2, 40), "float64")]),
        Case("onesided_complex", lambda m, x: m.stft(x, 8, onesided=True), [In((40,), "complex128")]),
        Case("int", spec(), [In((40,), "int64")]),
    ]
    return cs


def istft_cases():
    """torch.istft: the inverse of stft's results (lengths trimmed and padded, two-sided and complex
    spectra, windows shorter than n_fft), arbitrary spectra, gradients, and the refusals torch
    gives (a window that breaks the NOLA condition among them)."""
    def roundtrip(stft_kw=None, **kw):
        def fn(m, x):
            s = m.stft(x, 16, 4, window=_hann(m, x), **{"return_complex": True, **(stft_kw or {})})
            return m.istft(s, 16, 4, window=_hann(m, x), **kw)
        return fn
    cs = [
        Case("roundtrip", roundtrip(), [In((2, 100), "float64")]),
        Case("length", roundtrip(length=100), [In((100,), "float64")]),
        Case("longer_length", roundtrip(length=130), [In((100,), "float64")]),
        Case("shorter_length", roundtrip(length=37), [In((100,), "float64")]),
        Case("normalized", roundtrip({"normalized": True}, normalized=True), [In((60,), "float64")]),
        Case("two_sided", roundtrip({"onesided": False}, onesided=False), [In((60,), "float64")]),
        Case("complex", roundtrip({"onesided": False}, onesided=False, return_complex=True),
             [In((60,), "complex128")]),
        Case("not_centered", lambda m, x: m.istft(m.stft(x, 8, 2, window=_hamming(m, x), center=False, return_complex=True),
                                                 8, 2, window=_hamming(m, x), center=False),
             [In((2, 40), "float64")]),
        Case("no_window", lambda m, x: m.istft(m.stft(x, 8, 2, return_complex=True), 8, 2), [In((40,), "float64")]),
        Case("short_window", lambda m, x: m.istft(m.stft(x, 16, 4, 10, _hann(m, x, 10), return_complex=True), 16, 4, 10,
                                                 _hann(m, x, 10)), [In((64,), "float64")]),
        Case("spectrum", lambda m, s: m.istft(s, 16, 4, window=_hann(m, s)), [In((9, 26), "complex128")]),
        Case("window_input", lambda m, s, w: m.istft(s, 16, 4, window=w), [In((2, 9, 26), "complex128"),
                                                                             In((16,), "float64")]),
        Case("step", lambda m, s: m.istft(s, 16, 4), [In((9, 26), "complex128", layout="step")]),
        Case("empty_batch", lambda m, s: m.istft(s, 16, 4), [In((0, 9, 26), "complex128")]),
        Case("0dim", lambda m, s: m.istft(s, 16), [In((), "complex128")]),
        Case("complex64", lambda m, s: m.istft(s, 16, 4, window=m.hann_window(16, device=s.device)),
             [In((2, 9, 26), "complex64")], tol=SINGLE),
        Case("grad", _grads(lambda m, s: m.istft(s, 16, 4, window=_hann(m, s))), [In((9, 12), "complex128")]),
        # torch 2.x refuses every real input; torch 1.13 (the reference here) still read a [..., 2]
        # one as complex, so its refusal of another real input stands in.
        Case("real_input", lambda m, s: m.istft(s, 16, 4), [In((9, 26, 2), "float64")],
             torch_fn=lambda m, s: m.istft(s[..., 0], 16, 4)),
        Case("nola", lambda m, s: m.istft(s, 16, 4, window=m.zeros(16, dtype=m.float64, device=s.device)),
             [In((9, 26), "complex128")]),
        Case("bad_freq", lambda m, s: m.istft(s, 16, 4), [In((7, 26), "complex128")]),
        Case("hop_past_window", lambda m, s: m.istft(s, 16, 20), [In((9, 26), "complex128")]),
        Case("onesided_complex_out", lambda m, s: m.istft(s, 16, 4, return_complex=True), [In((9, 26), "complex128")]),
        Case("1d", lambda m, s: m.istft(s, 16), [In((9,), "complex128")]),
    ]
    return cs


CASES["stft"] = stft_cases()
CASES["istft"] = istft_cases()
