"""A small Transformer sequence classifier trained as everyday PyTorch code trains one: token and
learned position embeddings, nn.TransformerEncoder (batch_first, pre-norm, GELU) with a key padding
mask, masked mean pooling, label smoothing, AdamW under a OneCycleLR schedule, gradient clipping,
a forward hook that records the encoder's output norm, and cosine similarities of the embeddings.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Initial weights come from numpy, so both runs
start from the same numbers (each library's own generator would draw different ones).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, LENGTH, DIM, PAD = 12, 8, 16, 0


def make_data(n, seed):
    """Sequences of tokens 1..11 padded with 0 at the end; the label says whether token 3 appears
    more often than token 5."""
    rng = np.random.default_rng(seed)
    tokens = rng.integers(1, VOCAB, size=(n, LENGTH))
    lengths = rng.integers(4, LENGTH + 1, size=n)
    for i, k in enumerate(lengths):
        tokens[i, k:] = PAD
    labels = ((tokens == 3).sum(1) > (tokens == 5).sum(1)).astype(np.int64)
    return torch.from_numpy(tokens), torch.from_numpy(labels)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM, padding_idx=PAD)
        self.position = nn.Parameter(torch.zeros(LENGTH, DIM))
        layer = nn.TransformerEncoderLayer(DIM, 2, 32, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(DIM))
        self.head = nn.Linear(DIM, 2)

    def forward(self, tokens):
        padding = tokens == PAD
        x = self.embed(tokens) + self.position
        x = self.encoder(x, src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1)
        return self.head(pooled)


def init_from_numpy(model, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            scale = 0.3 if p.dim() > 1 else 0.05
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * scale).astype(np.float32)))


def main():
    tokens, labels = make_data(256, seed=0)
    test_tokens, test_labels = make_data(128, seed=1)
    model = Classifier()
    init_from_numpy(model, seed=2)
    norms = []
    handle = model.encoder.register_forward_hook(lambda mod, args, out: norms.append(float(out.norm())))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    epochs, batch = 4, 32
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, epochs=epochs, steps_per_epoch=256 // batch)
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for start in range(0, 256, batch):
            x, y = tokens[start:start + batch], labels[start:start + batch]
            loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            accuracy = (model(test_tokens).argmax(1) == test_labels).float().mean().item()
        print(f"epoch {epoch}: loss {total / 8:.4f} grad norm {float(grad_norm):.3f} test accuracy {accuracy:.4f} "
              f"lr {sched.get_last_lr()[0]:.6f}")
    handle.remove()
    model(test_tokens[:4])
    print(f"hook calls {len(norms)}, last encoder norm {norms[-1]:.3f}")
    weights = model.embed.weight.detach()
    sims = F.cosine_similarity(weights[1:4].unsqueeze(1), weights[1:4].unsqueeze(0), dim=-1)
    print("embedding similarities", [f"{v:.3f}" for v in sims.flatten().tolist()])


if __name__ == "__main__":
    main()
