"""A word-level language model trained as the classic PyTorch example trains one: an embedding, a
two-layer LSTM (or GRU) and a decoder with tied weights, the corpus batchified into columns, truncated
backpropagation through time with the hidden state detached between chunks, gradient clipping, a
hand-written SGD step on p.data, the learning rate annealed when the validation loss stops falling,
a checkpoint saved and loaded with torch.save/torch.load, and perplexities printed. A second part
tags variable-length sequences with a bidirectional GRU over packed sequences.

It is written for torch and imports torch; test_programs.py runs it with ctorch standing in for
torch and compares what it prints with torch's run. Weights and data come from numpy, and dropout is
0, so both runs compute the same numbers (each library's own generator would draw different ones).
"""
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

NTOKENS, EMSIZE, NHID, NLAYERS, BPTT = 20, 16, 16, 2, 6


def corpus(n, seed):
    """A token stream where each word mostly follows from the one before (w -> 3w + 1 mod 20)."""
    rng = np.random.default_rng(seed)
    words = [int(rng.integers(NTOKENS))]
    for _ in range(n - 1):
        nxt = (3 * words[-1] + 1) % NTOKENS if rng.random() < 0.8 else int(rng.integers(NTOKENS))
        words.append(nxt)
    return torch.tensor(words, dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0, tie_weights=True):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def init_from_numpy(model, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy((rng.uniform(-0.1, 0.1, tuple(p.shape))).astype(np.float32)))


def evaluate(model, source, bsz):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(bsz)
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, BPTT):
            data, targets = get_batch(source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * F.nll_loss(output, targets).item()
    return total_loss / (len(source) - 1)


def train_language_model(rnn_type):
    train_data = batchify(corpus(1200, seed=0), 8)
    val_data = batchify(corpus(300, seed=1), 4)
    model = RNNModel(rnn_type, NTOKENS, EMSIZE, NHID, NLAYERS)
    init_from_numpy(model, seed=2)
    criterion = nn.NLLLoss()
    lr, best_val = 5.0, None
    for epoch in range(1, 5):
        model.train()
        hidden = model.init_hidden(8)
        total = 0.0
        for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
            data, targets = get_batch(train_data, i)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total += loss.item()
        val_loss = evaluate(model, val_data, 4)
        print(f"{rnn_type} epoch {epoch} | lr {lr:.2f} | train loss {total / (batch + 1):.4f} | "
              f"valid loss {val_loss:.4f} | valid ppl {math.exp(val_loss):8.3f}")
        if best_val is None or val_loss < best_val:
            best_val = val_loss
        else:
            lr /= 4.0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.pt")
        torch.save(model.state_dict(), path)
        fresh = RNNModel(rnn_type, NTOKENS, EMSIZE, NHID, NLAYERS)
        fresh.load_state_dict(torch.load(path))
    print(f"{rnn_type} reloaded valid loss {evaluate(fresh, val_data, 4):.4f}")
    prompt = torch.tensor([[3]])
    hidden, words = fresh.init_hidden(1), []
    with torch.no_grad():
        for _ in range(8):
            output, hidden = fresh(prompt, hidden)
            prompt = output.argmax(dim=1).view(1, 1)
            words.append(int(prompt))
    print(f"{rnn_type} greedy continuation of 3: {words}")


class Tagger(nn.Module):
    """Tags each token with (token is even), from a bidirectional GRU over packed sequences."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(NTOKENS, 8, padding_idx=0)
        self.gru = nn.GRU(8, 12, batch_first=True, bidirectional=True)
        self.out = nn.Linear(24, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        output, h_n = self.gru(packed)
        padded, _ = pad_packed_sequence(output, batch_first=True, total_length=tokens.size(1))
        return self.out(padded), h_n


def train_tagger():
    rng = np.random.default_rng(3)
    lengths = rng.integers(2, 9, size=16)
    tokens = np.zeros((16, 8), dtype=np.int64)
    for i, n in enumerate(lengths):
        tokens[i, :n] = rng.integers(1, NTOKENS, size=n)
    tokens, lengths = torch.from_numpy(tokens), torch.from_numpy(lengths)
    tags = (tokens % 2 == 0).long()
    mask = tokens != 0
    model = Tagger()
    init_from_numpy(model, seed=4)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for step in range(30):
        logits, h_n = model(tokens, lengths)
        loss = F.cross_entropy(logits[mask], tags[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            accuracy = (logits.argmax(-1)[mask] == tags[mask]).float().mean()
            print(f"tagger step {step + 1} loss {loss.item():.4f} accuracy {accuracy.item():.3f} "
                  f"h_n norm {h_n.norm().item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train_language_model("LSTM")
    train_language_model("GRU")
    train_tagger()
