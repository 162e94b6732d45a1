#!/usr/bin/env python3
"""One epoch of GML's rigid-body tutorial training, `geomattn train` against the same training in JAX.

The network is GML's rigid-body VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3,
activation = tanh, skew_sym = false); the data are the tutorial's (1 238 trajectories of 101 states, 118 848
windows of seq = 3 and their 3 successors); an epoch is every window once, in minibatches of --batch, one Adam
step per minibatch on GML's transformer loss ||NN(X) - Y|| / ||Y||.

- geomattn: `geomattn train --data rigid-body` (f64, GML's Adam), its per-epoch times as it prints them;
- jax: the same network (weights as dense matrices, the triangular ones masked), `jax.jit` of
  `jax.value_and_grad` of the loss and `optax.adam`, f32 and f64, data and shuffles in NumPy (not timed:
  only the steps are, and the data are already on the device).

Each row: the median epoch time over --epochs epochs after one warm-up epoch (JAX's compilation included in the
warm-up only). Pin one core with taskset to compare one core with one, e.g.

    taskset -c 0 .venv/bin/python benches/train_peers.py --geomattn target/release/geomattn --epochs 5

needs: jax, optax, numpy (pip).
"""
import argparse, os, re, statistics, subprocess, sys, tempfile, time

import numpy as np

ARCH = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
SEQ, DIM, UNITS, BLOCKS = 3, 3, 3, 2


def rigid_body_data():
    """The tutorial's trajectories: implicit midpoint, h = 0.2, inertia (2, 1, 2/3), 101 states each."""
    h, coeff = 0.2, np.array([0.5, -1.0, 0.5])
    alphas = 0.1 + 0.01 * np.arange(619)
    z = np.concatenate([np.stack([np.sin(alphas), 0 * alphas, np.cos(alphas)], 1),
                        np.stack([0 * alphas, np.sin(alphas), np.cos(alphas)], 1)])
    f = lambda z: coeff * np.stack([z[:, 1] * z[:, 2], z[:, 2] * z[:, 0], z[:, 0] * z[:, 1]], 1)
    states = [z]
    for _ in range(100):
        nxt = z + h * f(z)
        for _ in range(60):                      # fixed point of z' = z + h f((z + z') / 2)
            nxt = z + h * f((z + nxt) / 2)
        states.append(nxt)
        z = nxt
    return np.stack(states, 1)                   # (trajectories, 101, 3)


def windows(data):
    n = data.shape[1] - 2 * SEQ + 1
    idx = np.arange(n)[:, None] + np.arange(SEQ)[None, :]
    x = data[:, idx, :]                          # (traj, n, SEQ, DIM)
    y = data[:, idx + SEQ, :]
    x = x.reshape(-1, SEQ, DIM).transpose(0, 2, 1)
    y = y.reshape(-1, SEQ, DIM).transpose(0, 2, 1)
    return x, y                                  # (windows, DIM, SEQ)


def jax_epochs(dtype, x, y, batch, epochs, single_thread):
    if single_thread:
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    import jax, jax.numpy as jnp, optax
    if dtype == "f64":
        jax.config.update("jax_enable_x64", True)
    dt = jnp.float64 if dtype == "f64" else jnp.float32
    rng = np.random.default_rng(0)
    lower, upper = np.tril(np.ones((DIM, DIM)), -1), np.triu(np.ones((DIM, DIM)), 1)
    # Per unit, as GML's chain: the attention's A; per block a linear pair (lower, then upper with a
    # bias) and a tanh pair with biases; then a last linear pair.
    params = []
    for _ in range(UNITS):
        unit = {"A": rng.uniform(-1, 1, (DIM, DIM))}
        for b in range(BLOCKS + 1):
            unit[f"lin_lo{b}"], unit[f"lin_up{b}"] = rng.uniform(-1.4, 1.4, (2, DIM, DIM))
            unit[f"b_lin{b}"] = np.zeros(DIM)
            if b < BLOCKS:
                unit[f"lo{b}"], unit[f"up{b}"] = rng.uniform(-1.4, 1.4, (2, DIM, DIM))
                unit[f"blo{b}"], unit[f"bup{b}"] = np.zeros(DIM), np.zeros(DIM)
        params.append(unit)
    params = jax.tree_util.tree_map(lambda a: jnp.asarray(a, dt), params)
    eye, low = jnp.eye(SEQ, dtype=dt), jnp.asarray(np.tril(np.ones((SEQ, SEQ)), -1), dt)

    def forward(params, z):
        for unit in params:
            g = jnp.einsum("bki,kl,blj->bij", z, unit["A"], z) * low / np.sqrt(DIM)
            c = g - jnp.swapaxes(g, 1, 2)
            z = z @ ((eye - c) @ jnp.linalg.inv(eye + c))
            mul = lambda w, mask, z: jnp.einsum("ij,bjt->bit", w * mask, z)
            for b in range(BLOCKS + 1):
                z = z + mul(unit[f"lin_lo{b}"], lower, z)
                z = z + mul(unit[f"lin_up{b}"], upper, z) + unit[f"b_lin{b}"][None, :, None]
                if b < BLOCKS:
                    z = z + jnp.tanh(mul(unit[f"lo{b}"], lower, z) + unit[f"blo{b}"][None, :, None])
                    z = z + jnp.tanh(mul(unit[f"up{b}"], upper, z) + unit[f"bup{b}"][None, :, None])
        return z

    def loss(params, xb, yb):
        return jnp.linalg.norm(forward(params, xb) - yb) / jnp.linalg.norm(yb)

    opt = optax.adam(1e-3)
    state = opt.init(params)

    @jax.jit
    def step(params, state, xb, yb):
        value, grads = jax.value_and_grad(loss)(params, xb, yb)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    xd, yd = jnp.asarray(x, dt), jnp.asarray(y, dt)
    times = []
    for epoch in range(epochs + 1):
        order = jnp.asarray(rng.permutation(len(x)))
        chunks = [order[i:i + batch] for i in range(0, len(x), batch)]
        batches = [(xd[c], yd[c]) for c in chunks]       # gathered before the clock starts
        jax.block_until_ready(batches)
        start = time.perf_counter()
        for xb, yb in batches:
            params, state, value = step(params, state, xb, yb)
        jax.block_until_ready(params)
        if epoch:                                        # epoch 0 compiles
            times.append(time.perf_counter() - start)
    return statistics.median(times), float(value)


def geomattn_epochs(binary, batch, epochs):
    out = subprocess.run([binary, "train", "--arch", ARCH, "--data", "rigid-body", "--epochs", str(epochs + 1),
                          "--batch", str(batch), "-o", os.path.join(tempfile.mkdtemp(), "net.h5")],
                         check=True, capture_output=True, text=True).stdout
    stamps = [float(m.group(1)) for m in re.finditer(r"time ([0-9.]+) s", out)]
    losses = [float(m.group(1)) for m in re.finditer(r"loss (\S+)", out)]
    per_epoch = np.diff([0.0] + stamps)[1:]              # the first epoch is the warm-up, as JAX's
    return statistics.median(per_epoch), losses[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--geomattn", required=True, help="the geomattn binary (a release build)")
    ap.add_argument("--batch", type=int, default=16384, help="the tutorial's 16384")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--only", choices=["geomattn", "jax-f32", "jax-f64", "jax-st-f32", "jax-st-f64"])
    args = ap.parse_args()
    if args.only and args.only.startswith("jax"):
        x, y = windows(rigid_body_data())
        dtype = args.only[-3:]
        seconds, loss = jax_epochs(dtype, x, y, args.batch, args.epochs, "-st-" in args.only)
        print(f"{args.only},{len(x)},{args.batch},{seconds:.4f},{loss:.4g}")
        return
    if args.only == "geomattn":
        seconds, loss = geomattn_epochs(args.geomattn, args.batch, args.epochs)
        print(f"geomattn-f64,118848,{args.batch},{seconds:.4f},{loss:.4g}")
        return
    print("framework,windows,batch,seconds_per_epoch,last_loss")
    for which in ["geomattn", "jax-f32", "jax-f64", "jax-st-f32", "jax-st-f64"]:
        # Each in its own process: XLA's flags and x64 are process-wide.
        run = subprocess.run([sys.executable, __file__, "--geomattn", args.geomattn, "--batch", str(args.batch),
                              "--epochs", str(args.epochs), "--only", which], capture_output=True, text=True)
        print(run.stdout.strip() or f"{which},failed: {run.stderr.strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    main()
