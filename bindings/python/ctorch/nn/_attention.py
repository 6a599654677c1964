"""multi_head_attention_forward (torch.nn.functional's): the computation under MultiheadAttention,
taking every weight as an argument. The input projection (packed, or one weight per q, k, v), the
optional learned key/value bias rows and zero-attention rows, heads split into the batch, scaled
scores plus the masks, softmax, dropout, and the output projection; with need_weights, the
attention weights (averaged over the heads unless average_attn_weights is False)."""

import math

from . import functional as F


def _mask_as_float(mask, like, name):
    """A bool mask (True: not attended) as 0 / -inf in like's dtype and on its device; a float mask
    converted."""
    from .. import bool as bool_dtype, zeros

    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        return mask.to(like.device).to(like.dtype)
    if mask.dtype != bool_dtype:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return zeros(mask.shape, dtype=like.dtype, device=like.device).masked_fill(mask.to(like.device), float("-inf"))


def _pad_last(mask):
    """mask with one more column (attended: 0) for an appended key."""
    from .. import cat, zeros
    if mask is None:
        return None
    return cat([mask, zeros(list(mask.shape[:-1]) + [1], dtype=mask.dtype, device=mask.device)], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """(output, weights) for query [L, N, E], key and value [S, N, E] (or without N, one sequence)."""
    from .. import cat, zeros
    batched = query.dim() == 3
    if not batched:
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    e = embed_dim
    bq, bk, bv = (None, None, None) if in_proj_bias is None else (in_proj_bias[:e], in_proj_bias[e:2 * e],
                                                                    in_proj_bias[2 * e:])
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, k_proj_weight or v_proj_weight "
                                 "is None")
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        wq, wk, wv = in_proj_weight[:e], in_proj_weight[e:2 * e], in_proj_weight[2 * e:]
    q = F.linear(query, wq, bq)
    k = F.linear(key, wk, bk)
    v = F.linear(value, wv, bv)
    attn_mask = _mask_as_float(attn_mask, q, "attn_mask")
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, key.shape[0]):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, key.shape[0])}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, key.shape[0]):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, key.shape[0])}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    padding = _mask_as_float(key_padding_mask, q, "key_padding_mask")
    if bias_k is not None and bias_v is not None:  # one learned key and value appended to every sequence
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key and value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, padding = _pad_last(attn_mask), _pad_last(padding)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given, or neither")
    h, hd = num_heads, head_dim
    q = q.reshape(tgt_len, bsz * h, hd).transpose(0, 1)  # [N h, L, hd]
    k = (k.reshape(k.shape[0], bsz * h, hd).transpose(0, 1) if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * h, hd).transpose(0, 1) if static_v is None else static_v)
    if add_zero_attn:  # a zero key and value every query may attend to
        k = cat([k, zeros(bsz * h, 1, hd, dtype=k.dtype, device=k.device)], 1)
        v = cat([v, zeros(bsz * h, 1, hd, dtype=v.dtype, device=v.device)], 1)
        attn_mask, padding = _pad_last(attn_mask), _pad_last(padding)
    src_len = k.shape[1]
    mask = attn_mask
    if padding is not None:
        if tuple(padding.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(padding.shape)}")
        padding = padding.reshape(bsz, 1, 1, src_len).expand(bsz, h, 1, src_len).reshape(bsz * h, 1, src_len)
        mask = padding if mask is None else mask + padding
    if not training:
        dropout_p = 0.0
    scores = (q * (1.0 / math.sqrt(hd))) @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores + mask
    weights = F.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = weights @ v  # [N h, L, hd]
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(bsz, h, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        weights = weights.squeeze(0)
    return out, weights
