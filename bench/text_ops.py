"""tf_wordpiece.text's trimming, segment and masking ops against tensorflow_text's, per call.

    python bench/text_ops.py [--repeats 5] [--batches 1,64,1000] [--mode graph,eager] [--only NAME]
                             [--control] [--calls N]

The shared sample (tests/data/multilingual_dev.txt) through tensorflow_text.BertTokenizer
(bert-base-uncased, lower_case) gives int64 [batch, (tokens)] rows; a batch of B is its
first B lines, and the second and third segments are the same lines rotated. Each
function runs in `graph` mode (a `tf.function` with a ragged input signature, as inside
`tf.data`) and in `eager` mode. Outputs are checked equal first (the random ones with
settings that make them deterministic: selection rate 1 with no cap, `[MASK]` rate 1), then the
contenders take turns within each pass; wall and CPU (process) milliseconds per call,
medians over the passes, and tensorflow_text's time over ours (above 1: ours is faster).

`--control` adds an A/A control for cells where both run the same kernels and the ratio is near 1: a second,
separately traced tensorflow_text function takes its turn in each pass too, the order reverses every other
pass, and a column gives the median over the passes of tensorflow_text's CPU time over its twin's (how far
from 1.00 noise alone moves a ratio). An identity function of the same inputs takes its turn as well: the
last column is each side's CPU time less the identity's (medians over the passes), what the ops themselves
cost without the call (in a graph, converting ragged inputs and outputs costs some 0.3 ms per ragged tensor
and call for both). `--calls` sets the calls per pass (default max(3, 50 // batch)).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from typing import Callable

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]  # bench/tokenize.py shadows the stdlib's

import types  # noqa: E402

import tensorflow as tf  # noqa: E402
import tensorflow_text as text  # noqa: E402

from tf_wordpiece.text import masking, segments, trimmers  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = ROOT / "tests" / "data" / "bert-base-uncased" / "vocab.txt"
SAMPLE = ROOT / "tests" / "data" / "multilingual_dev.txt"
SPECIAL = [0, 101, 102, 103]
OURS = types.SimpleNamespace(**{n: getattr(m, n) for m in (trimmers, segments, masking) for n in m.__dict__})
SPEC = tf.RaggedTensorSpec([None, None], tf.int64, ragged_rank=1)


def sample_rows(count: int) -> tf.RaggedTensor:
    lines = [line for line in SAMPLE.read_text(encoding="utf-8").split("\n") if line]
    lines = (lines * (count // len(lines) + 1))[:count]
    tokenizer = text.BertTokenizer(str(VOCAB), lower_case=True, token_out_type=tf.int64)
    return tokenizer.tokenize(tf.constant(lines)).merge_dims(1, 2)


def cases(lib, deterministic: bool) -> dict[str, tuple[int, Callable]]:
    """name -> (how many segments it takes, function of them) for one library (ours or tensorflow_text)."""
    rate, cap, mask_rate, random_rate = (1.0, 100_000, 1.0, 0.0) if deterministic else (0.15, 20, 0.8, 0.1)
    selector = lib.RandomItemSelector(max_selections_per_batch=cap, selection_rate=rate, unselectable_ids=SPECIAL)
    chooser = lib.MaskValuesChooser(30522, 103, mask_token_rate=mask_rate, random_token_rate=random_rate)
    return {
        "RoundRobinTrimmer.trim (2 segments)": (2, lambda a, b: tuple(lib.RoundRobinTrimmer(126).trim([a, b]))),
        "RoundRobinTrimmer.trim (3 segments)": (3, lambda a, b, c: tuple(lib.RoundRobinTrimmer(125).trim([a, b, c]))),
        "WaterfallTrimmer.trim (2 segments)": (2, lambda a, b: tuple(lib.WaterfallTrimmer(126).trim([a, b]))),
        "ShrinkLongestTrimmer.trim (2 segments)": (2, lambda a, b: tuple(lib.ShrinkLongestTrimmer(126).trim([a, b]))),
        "RoundRobinTrimmer.generate_mask": (2, lambda a, b: tuple(lib.RoundRobinTrimmer(126).generate_mask([a, b]))),
        "combine_segments (2 segments)": (2, lambda a, b: lib.combine_segments([a, b], 101, 102)),
        "pad_model_inputs (128)": (1, lambda a: lib.pad_model_inputs(a, 128)),
        "FirstNItemSelector.get_selection_mask": (
            1,
            lambda a: lib.FirstNItemSelector(5, SPECIAL).get_selection_mask(a, axis=1),
        ),
        "RandomItemSelector.get_selection_mask": (1, lambda a: selector.get_selection_mask(a, axis=1)),
        "MaskValuesChooser.get_mask_values": (1, lambda a: chooser.get_mask_values(a)),
        "mask_language_model (RandomItemSelector)": (1, lambda a: lib.mask_language_model(a, selector, chooser)),
    }


def compiled(function: Callable, count: int, mode: str) -> Callable:
    return tf.function(function, input_signature=[SPEC] * count) if mode == "graph" else function


def as_lists(result) -> list:
    result = result if isinstance(result, tuple) else (result,)
    return [t.to_list() if isinstance(t, tf.RaggedTensor) else t.numpy().tolist() for t in result]


def clocked(work: Callable, calls: int) -> tuple[float, float]:
    """(wall, CPU) milliseconds per call of `work()`; CPU is this process's, all threads."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        work()
    return (time.perf_counter() - wall) * 1e3 / calls, (time.process_time() - cpu) * 1e3 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batches", default="1,64,1000")
    parser.add_argument("--mode", default="graph,eager")
    parser.add_argument("--only", default="", help="run the functions whose name contains this")
    parser.add_argument("--control", action="store_true", help="time tensorflow_text against itself too")
    parser.add_argument("--calls", type=int, default=0, help="calls per pass (default max(3, 50 // batch))")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    rows = sample_rows(max(batches) + 14)
    control = " A/A CPU | CPU less the call, ours / tensorflow_text |" if args.control else ""
    print(
        f"| mode | function | batch | ours ms wall / CPU | tensorflow_text ms wall / CPU | ratio wall / CPU |{control}"
    )
    print("|---|---|---|---|---|---|" + ("---|---|" if args.control else ""))
    for mode in args.mode.split(","):
        for name in [n for n in cases(OURS, True) if args.only in n]:
            for batch in batches:
                inputs = [rows[i * 7 : i * 7 + batch] for i in range(3)]
                count, ours = cases(OURS, True)[name]  # outputs equal first, in deterministic settings
                tf.random.set_seed(1)
                got = as_lists(compiled(ours, count, mode)(*inputs[:count]))
                tf.random.set_seed(1)
                want = as_lists(compiled(cases(text, True)[name][1], count, mode)(*inputs[:count]))
                if "Chooser" not in name or mode == "eager":  # in graphs, the random ops' seeds differ
                    assert got == want, (name, batch, mode)
                libraries = (OURS, text, text) if args.control else (OURS, text)
                contenders = [compiled(cases(lib, False)[name][1], count, mode) for lib in libraries]
                contenders += [compiled(lambda *segments: segments, count, mode)] if args.control else []
                for function in contenders:
                    function(*inputs[:count])  # trace
                times = passes(
                    contenders, inputs[:count], args.repeats, args.calls or max(3, 50 // batch), args.control
                )
                (ow, oc), (tw, tc) = (
                    (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for t in times[:2]
                )
                print(
                    f"| {mode} | {name} | {batch} | {ow:.2f} / {oc:.2f} | {tw:.2f} / {tc:.2f} | "
                    f"{tw / ow:.2f}x / {tc / oc:.2f}x |" + (controls(times) if args.control else ""),
                    flush=True,
                )


def controls(times: list[list]) -> str:
    """The A/A ratio (tensorflow_text over its twin) and each side's CPU ms less the identity's, medians."""
    ours, theirs, twin, identity = ([c for _, c in t] for t in times)
    aa = statistics.median(a / b for a, b in zip(theirs, twin))
    less = [statistics.median(c - i for c, i in zip(side, identity)) for side in (ours, theirs)]
    return f" {aa:.2f}x | {less[0]:.3f} / {less[1]:.3f} |"


def passes(contenders: list[Callable], inputs: list, repeats: int, calls: int, alternate: bool) -> list[list]:
    """(wall, CPU) per call of each contender in each pass; the contenders take turns within a pass, in
    reverse order every other pass if `alternate` (so none always runs first)."""
    times = [[] for _ in contenders]
    for number in range(repeats):
        order = list(enumerate(contenders))
        for i, function in order[::-1] if alternate and number % 2 else order:
            times[i].append(clocked(lambda f=function: f(*inputs), calls))
    return times


if __name__ == "__main__":
    main()
