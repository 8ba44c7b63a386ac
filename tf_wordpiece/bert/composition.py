"""Canonical composition (the C of NFC and NFKC) over decomposed code points, in core TensorFlow ops.

tensorflow_text's `normalization_form="NFC"` / `"NFKC"` composes across code
points (`e` + U+0301 -> `é`), which a per-code-point table cannot do. After
the per-code-point NFD / NFKD (`normalizers.tf_text_normalizer`), `Composer`
runs Unicode's algorithm (UAX #15) on a flat batch:

1. Canonical ordering: each run of non-starters (combining class > 0) is
   sorted by combining class, stably.
2. Composition, left to right: a character C combines with the last starter
   L when nothing between them blocks it (no uncomposed character with class
   0 or a class >= C's) and L + C has a primary composite P; then L becomes P
   and C goes. The code points are cut into segments at starters that never
   combine with what precedes them; within each segment one loop step
   handles the k-th character of every segment at once. A mark after 4 marks
   of its class cannot combine (decompositions are short), so the loop skips
   it: a long run of marks (Zalgo text) costs a few steps, not one per mark.

The data: decompositions and which code points NFC keeps come from the
shipped ICU tables (read off tensorflow_text, Hangul syllables included),
combining classes too (ICU's Unicode, newer than Python's `unicodedata`).

>>> from tf_wordpiece.unicode import tables as ut
>>> composer = Composer()
>>> cps = tf.constant([ord(c) for c in "e\\u0301a\\u0307\\u0323\\u1100\\u1161\\u11a8"])
>>> out, source, owner = composer(cps, tf.zeros_like(cps))
>>> "".join(chr(c) for c in out.numpy()), source.numpy().tolist(), owner.numpy().tolist()
('éạ̇각', [0, 2, 3, 5], [0, 0, 1, 2, 1, 3, 3, 3])
"""

from __future__ import annotations

import functools

import numpy as np
import tensorflow as tf

from tf_wordpiece.shapes import masked
from tf_wordpiece.unicode import tables as ut

_CP_BITS = 21
# Marks of one class that can combine in a row (canonical decompositions hold at most 3 code points).
_MAX_CHAIN = 4


class Composer(tf.Module):
    """Canonical ordering and composition of decomposed code points (see the module docstring).

    The data is tensorflow_text's shipped tables (`unicode.tables.peer_tables()["tf_text"]`).
    """

    def __init__(self):
        super().__init__()
        pairs, _, maybe = _composition_data()
        with tf.init_scope():
            # Sorted constants, not a lookup table: a table held by the module-level Composer of
            # tf_wordpiece.text's normalize_utf8 would be an untracked resource in a SavedModel.
            keys = np.array([(a << _CP_BITS) | b for a, b in pairs], np.int64)
            by_key = np.argsort(keys)
            self._pair_keys = tf.constant(keys[by_key])
            self._pair_values = tf.constant(np.array(list(pairs.values()), np.int32)[by_key])
        self.marks = MarkOrder()  # the combining classes, and canonical ordering alone
        self._maybe = ut.CodePointLookup(maybe)  # class 0, but may combine with what precedes it
        leads = np.zeros(ut.NUM_CODE_POINTS, np.int32)
        leads[[first for first, _ in pairs]] = 1
        self._leads = ut.CodePointLookup(leads)  # may combine with what follows it

    def properties(self, code_points: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """int32 code points [m] (negative ones: class 0, combining with nothing) -> (combining class,
        bool may combine with what precedes it, bool may combine with what follows it), each [m]."""
        valid = code_points >= 0
        cps = tf.maximum(code_points, 0)
        ccc = self.marks.classes(code_points)
        back = valid & ((ccc > 0) | (self._maybe(cps) > 0))
        return ccc, back, valid & (self._leads(cps) > 0)

    def _composite(self, keys: tf.Tensor) -> tf.Tensor:
        """int64 pair keys [k] -> int32 [k]: the primary composite of each (starter, mark) pair, -1 for none."""
        at = tf.minimum(tf.searchsorted(self._pair_keys, keys), tf.size(self._pair_keys) - 1)
        return tf.where(tf.equal(tf.gather(self._pair_keys, at), keys), tf.gather(self._pair_values, at), -1)

    def _canonical_order(self, code_points: tf.Tensor, rows: tf.Tensor) -> tuple:
        """(row_start, run, run_start, order, ccc in the new order), each [m]: runs of marks sorted by class, stably."""
        position = tf.range(tf.size(code_points))
        ccc = self.marks.classes(code_points)
        row_start = _row_starts(rows)
        run = row_start | tf.equal(ccc, 0)
        run_start = tf.gather(masked(position, run), tf.cumsum(tf.cast(run, tf.int32)) - 1)
        order = mark_order(ccc, row_start)
        return row_start, run, run_start, order, tf.gather(ccc, order)

    def __call__(self, code_points: tf.Tensor, rows: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """int32 code points [m] (negative ones stay, and block), their rows [m] (non-decreasing) ->
        (composed code points [k], int32 [k] the input index of each one's first constituent,
        int32 [m] the output each input code point went into).

        Three steps: canonical ordering (`_canonical_order`), the segments
        that compose (`_segments`), composition in each (`_compose`).
        """
        code_points = tf.cast(code_points, tf.int32)
        m = tf.size(code_points)
        position = tf.range(m)
        row_start, run, run_start, order, ccc = self._canonical_order(code_points, rows)
        cps = tf.gather(code_points, order)
        loop_pos, seg_start, seg_length = self._segments(code_points, cps, order, ccc, row_start, run, run_start)
        cps, owner = self._compose(cps, ccc, loop_pos, seg_start, seg_length)
        kept = tf.equal(owner, position)
        keep = tf.reshape(tf.where(kept), [-1])
        numbered = tf.cumsum(tf.cast(kept, tf.int32)) - 1  # output index of each kept position
        owner_out = tf.scatter_nd(order[:, None], tf.gather(numbered, owner), [m])  # back in input order
        return tf.gather(cps, keep), tf.gather(order, keep), owner_out

    def _segments(self, code_points, cps, order, ccc, row_start, run, run_start) -> tuple:
        """The code points in canonical order -> (loop_pos, seg_start, seg_length): the positions the loop
        visits (int32, in order), each segment's first index into them and its length.

        A mark preceded by _MAX_CHAIN marks of its class (since the starter)
        can never combine: skipping it bounds the loop however long a run of
        marks is. It still blocks: a class-0 character after it starts a
        segment of its own.
        """
        m = tf.size(code_points)
        position = tf.range(m)
        valid = code_points >= 0
        group = run | tf.not_equal(ccc, tf.concat([[-1], ccc[:-1]], 0))[:m]
        rank = position - tf.gather(masked(position, group), tf.cumsum(tf.cast(group, tf.int32)) - 1)
        skip = (ccc > 0) & (rank >= _MAX_CHAIN)
        skipped = tf.concat([[0], tf.cumsum(tf.cast(skip, tf.int32))], 0)  # skipped before each position
        previous_run = tf.gather(run_start, tf.maximum(position - 1, 0))
        blocked = tf.gather(skipped, position) > tf.gather(skipped, previous_run)
        maybe = tf.where(tf.gather(valid, order), self._maybe(tf.maximum(cps, 0)) > 0, False)
        start = row_start | (tf.equal(ccc, 0) & (~maybe | blocked))
        loop_pos = masked(position, ~skip)  # the code points the loop visits, in order
        seg_start = tf.reshape(tf.where(tf.gather(start, loop_pos)), [-1])
        seg_start = tf.cast(seg_start, tf.int32)  # index into loop_pos
        seg_length = tf.concat([seg_start[1:], tf.shape(loop_pos)], 0) - seg_start
        return loop_pos, seg_start, seg_length

    def _compose(self, cps, ccc, loop_pos, seg_start, seg_length) -> tuple[tf.Tensor, tf.Tensor]:
        """Composition, all segments at once, one loop step per code point of the longest ->
        (cps with composites written over their starters, owner: the (sorted) position each went into)."""
        first = tf.gather(loop_pos, seg_start)
        first_is_starter = tf.equal(tf.gather(ccc, first), 0)
        cur_pos = tf.where(first_is_starter, first, -1)
        cur_val = tf.where(first_is_starter, tf.gather(cps, first), -1)
        last = tf.where(first_is_starter, -1, tf.gather(ccc, first))
        owner = tf.range(tf.size(cps))  # (sorted) position of the code point each one went into

        def step(k, cps, owner, cur_pos, cur_val, last):
            active = tf.reshape(tf.where(seg_length > k), [-1])
            at = tf.gather(loop_pos, tf.gather(seg_start, active) + k)
            c, cc = tf.gather(cps, at), tf.gather(ccc, at)
            pos, val, lst = tf.gather(cur_pos, active), tf.gather(cur_val, active), tf.gather(last, active)
            unblocked = (pos >= 0) & (c >= 0) & tf.where(tf.equal(cc, 0), lst < 0, lst < cc)
            key = tf.bitwise.bitwise_or(
                tf.bitwise.left_shift(tf.cast(tf.maximum(val, 0), tf.int64), _CP_BITS),
                tf.cast(tf.maximum(c, 0), tf.int64),
            )
            composite = tf.where(unblocked, self._composite(key), -1)
            composed = composite >= 0
            done = masked(pos, composed)[:, None]
            cps = tf.tensor_scatter_nd_update(cps, done, masked(composite, composed))
            owner = tf.tensor_scatter_nd_update(owner, masked(at, composed)[:, None], done[:, 0])
            new_starter = ~composed & tf.equal(cc, 0)
            pos = tf.where(new_starter, at, pos)
            val = tf.where(composed, composite, tf.where(new_starter, c, val))
            lst = tf.where(composed, lst, tf.where(new_starter, -1, tf.maximum(lst, cc)))
            index = active[:, None]
            return (
                k + 1,
                cps,
                owner,
                tf.tensor_scatter_nd_update(cur_pos, index, pos),
                tf.tensor_scatter_nd_update(cur_val, index, val),
                tf.tensor_scatter_nd_update(last, index, lst),
            )

        longest = tf.reduce_max(tf.concat([seg_length, [0]], 0))
        _, cps, owner, *_ = tf.while_loop(
            lambda k, *_: k < longest, step, (tf.constant(1), cps, owner, cur_pos, cur_val, last)
        )
        return cps, owner


def mark_order(ccc: tf.Tensor, row_start: tf.Tensor) -> tf.Tensor:
    """int32 [m]: the input index of each code point once each run of marks is sorted by class, stably.

    The marks of a run follow one another, so only marks beside a mark of their row can move: those
    alone are sorted, by (their group of marks, class) (an argsort of every code point cost more than
    the rest of NFD).

    >>> mark_order(tf.constant([0, 230, 220, 0, 220]), tf.constant([True, False, False, True, False])).numpy().tolist()
    [0, 2, 1, 3, 4]
    """
    m = tf.size(ccc)
    mark = ccc > 0
    pair = mark[1:] & mark[:-1] & ~row_start[1:]  # [m - 1]: position p + 1 is a mark after a mark of its row
    follows = tf.concat([[False], pair], 0)[:m]  # [:m]: m may be 0
    moves = tf.reshape(tf.where(tf.concat([pair, [False]], 0)[:m] | follows), [-1, 1])
    group = tf.cumsum(tf.cast(~tf.gather_nd(follows, moves), tf.int32))
    key = tf.cast(group, tf.int64) * 256 + tf.cast(tf.gather_nd(ccc, moves), tf.int64)
    sorted_moves = tf.gather(moves[:, 0], tf.argsort(key, stable=True))
    return tf.tensor_scatter_nd_update(tf.range(m), moves, tf.cast(sorted_moves, tf.int32))


class MarkOrder(tf.Module):
    """Canonical ordering alone, the last step of NFD / NFKD after a per-code-point decomposition: each run of
    marks (combining class > 0) sorted by class, stably. Only where a mark follows a mark is there work.

    >>> order = MarkOrder()
    >>> cps, rows, source = order(tf.constant([0x61, 0x301, 0x323, 0x62]), tf.constant([0, 0, 0, 1]), tf.range(4))
    >>> [hex(c) for c in cps.numpy()], source.numpy().tolist()
    (['0x61', '0x323', '0x301', '0x62'], [0, 2, 1, 3])
    """

    def __init__(self):
        super().__init__()
        ccc = _composition_data()[1]
        self._past_marks = int(np.flatnonzero(ccc).max()) + 1  # the table's last entry, class 0, for all past it
        with tf.init_scope():  # one gather a code point (a CodePointLookup's pages take seven ops)
            self._ccc = tf.constant(np.append(ccc[: self._past_marks], 0).astype(np.uint8))

    def classes(self, code_points: tf.Tensor) -> tf.Tensor:
        """int32 code points [m] -> int32 [m], each one's canonical combining class (0 for negative ones)."""
        inside = (code_points >= 0) & (code_points < self._past_marks)
        return tf.cast(tf.gather(self._ccc, tf.where(inside, code_points, self._past_marks)), tf.int32)

    def order(self, code_points: tf.Tensor, rows: tf.Tensor) -> tf.Tensor:
        """int32 code points [m], their rows [m] (non-decreasing) -> int32 [m], the input index of each code
        point in canonical order.

        >>> MarkOrder().order(tf.constant([0x61, 0x0301, 0x0323, 0x62]), tf.constant([0, 0, 0, 1])).numpy().tolist()
        [0, 2, 1, 3]
        """
        return mark_order(self.classes(tf.cast(code_points, tf.int32)), _row_starts(rows))

    def __call__(self, code_points: tf.Tensor, rows: tf.Tensor, *values: tf.Tensor) -> tuple:
        """int32 code points [m] (negative ones: class 0), rows [m] (non-decreasing), and any tensors [m]
        that go with them -> all of them in canonical order (as they are when no mark follows a mark)."""
        ccc = self.classes(code_points)
        mark = ccc > 0
        together = (code_points, rows) + values

        def reorder():
            order = mark_order(ccc, _row_starts(rows))
            return tuple(tf.gather(t, order) for t in together)

        return tf.cond(tf.reduce_any(mark[1:] & mark[:-1]), reorder, lambda: together)


def _row_starts(rows: tf.Tensor) -> tf.Tensor:
    """bool [m]: whether each code point is its row's first (rows [m], non-decreasing)."""
    return tf.concat([tf.ones([tf.minimum(tf.size(rows), 1)], tf.bool), tf.not_equal(rows[1:], rows[:-1])], 0)


def combining_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int32 canonical combining class, bool: the first of a primary composite pair, bool: the second of one),
    each [NUM_CODE_POINTS]: with all three 0 / False, nothing composes with a code point or moves past it."""
    pairs, ccc, _ = _composition_data()
    first, second = np.zeros(ut.NUM_CODE_POINTS, bool), np.zeros(ut.NUM_CODE_POINTS, bool)
    first[[a for a, _ in pairs]] = True
    second[[b for _, b in pairs]] = True
    return ccc, first, second


def composite_pairs() -> dict[tuple[int, int], int]:
    """{(first, second): primary composite}: the pairs canonical composition joins."""
    return _composition_data()[0]


@functools.cache
def _composition_data() -> tuple[dict, np.ndarray, np.ndarray]:
    """(primary composite pairs {(a, b): composite}, combining class [code points], "may combine
    backward" [code points]) from ICU's full canonical decompositions, NFC table and combining classes."""
    tables = ut.peer_tables()["tf_text"]
    nfd = ut.code_point_map(tables["nfd"])
    nfc_changes = ut.code_point_map(tables["nfc"])
    stable = {full: cp for cp, full in nfd.items() if cp not in nfc_changes}  # NFC keeps cp: a composite
    pairs = {}
    for full, cp in stable.items():
        if len(full) < 2:
            continue
        head = full[:-1]
        first = head[0] if len(head) == 1 else stable.get(head)
        if first is not None:
            pairs[(first, full[-1])] = cp
    ccc = np.zeros(ut.NUM_CODE_POINTS, np.int32)
    for cp, combining_class in tables["ccc"].items():
        ccc[int(cp)] = combining_class
    maybe = np.zeros(ut.NUM_CODE_POINTS, np.int32)
    for _, second in pairs:
        if ccc[second] == 0:
            maybe[second] = 1
    return pairs, ccc, maybe
