"""A small GPT-style character language model trained as nanoGPT-like scripts train one: token and
position embeddings, pre-norm blocks of causal self-attention (F.scaled_dot_product_attention with
is_causal where the library has it, else the masked softmax over a registered tril buffer) and a GELU
MLP, the head's weight tied to the embedding, AdamW with decay and no-decay
parameter groups, a linear warmup then cosine schedule through LambdaLR, gradient clipping, an
estimate_loss() under torch.no_grad() and model.eval(), a checkpoint saved and resumed, and greedy
generation.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Weights come from numpy and batches are taken in
order, so both runs compute the same numbers (each library's own generator would draw different ones).
"""
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog. " * 24
CHARS = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(CHARS)}
BLOCK, DIM, HEADS, LAYERS = 16, 32, 4, 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.flash = hasattr(F, "scaled_dot_product_attention")
        if not self.flash:
            self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(DIM, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(DIM), CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.wte = nn.Embedding(vocab, DIM)
        self.wpe = nn.Embedding(BLOCK, DIM)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay, lr):
        params = {n: p for n, p in self.named_parameters() if p.requires_grad}
        decay = [p for n, p in params.items() if p.dim() >= 2]
        no_decay = [p for n, p in params.items() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        print(f"decayed tensors {len(decay)} ({sum(p.numel() for p in decay)} parameters), "
              f"not decayed {len(no_decay)} ({sum(p.numel() for p in no_decay)} parameters)")
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    @torch.no_grad()
    def generate(self, idx, steps):
        for _ in range(steps):
            logits, _ = self(idx[:, -BLOCK:])
            idx = torch.cat((idx, logits[:, -1, :].argmax(dim=-1, keepdim=True)), dim=1)
        return idx


def batches(data, batch):
    """Consecutive windows in order: the same batches for every run."""
    starts = range(0, len(data) - BLOCK - 1, 7)
    windows = [(data[s:s + BLOCK], data[s + 1:s + 1 + BLOCK]) for s in starts]
    for i in range(0, len(windows) - batch + 1, batch):
        chunk = windows[i:i + batch]
        yield torch.stack([x for x, _ in chunk]), torch.stack([y for _, y in chunk])


def init_from_numpy(model, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name:
                continue  # LayerNorm keeps its ones and zeros
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32)))


def main():
    data = torch.tensor([STOI[c] for c in TEXT], dtype=torch.long)
    split = int(0.9 * len(data))
    train, val = data[:split], data[split:]
    model = GPT(len(CHARS))
    init_from_numpy(model, seed=0)
    print(f"parameters {sum(p.numel() for p in model.parameters())}")
    opt = model.configure_optimizers(weight_decay=0.1, lr=3e-3)
    warmup, total = 5, 40

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.1 + 0.45 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        losses = [model(x, y)[1].item() for x, y in batches(val, 4)]
        model.train()
        return sum(losses) / len(losses)

    step = 0
    while step < total:
        for x, y in batches(train, 8):
            _, loss = model(x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if step % 10 == 0:
                print(f"step {step}: train loss {loss.item():.4f}, val loss {estimate_loss():.4f}, "
                      f"grad norm {norm.item():.3f}, lr {sched.get_last_lr()[0]:.5f}")
            if step == total:
                break

    path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, path)
    checkpoint = torch.load(path)
    resumed = GPT(len(CHARS))
    resumed.load_state_dict(checkpoint["model"])
    print(f"resumed at step {checkpoint['step']}, same weights: "
          f"{all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), resumed.state_dict().values()))}")
    prompt = torch.tensor([[STOI[c] for c in "the quick "]], dtype=torch.long)
    out = resumed.generate(prompt, 20)[0].tolist()
    print("generated:", repr("".join(CHARS[i] for i in out)))


if __name__ == "__main__":
    main()
