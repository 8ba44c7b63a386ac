"""Stage 2: greedy longest-match WordPiece on every slot at once, then each word's pieces by pointer doubling.

1. Walks: every slot walks down the vocabulary's trie (`tables.WalkTables`),
   from the root where a word starts and from the suffix root elsewhere, one
   character a step for `depth` steps (the longest token), all slots in the
   same op: the longest piece that starts at each slot, whatever the word's
   pieces before it turn out to be. The op count does not grow with the words'
   length, only with the vocabulary's longest token.
2. Chains: a word's pieces start at its first slot and each one after the last
   one ends (`jump` = slot + the length of its piece). Jumps composed 2**k
   times (pointer doubling, k < K) let every slot find, in K gathers, the
   furthest piece start of its word at or before it: the slot starts a piece
   exactly when that is itself. K is the bits of the longest word (7 for 100
   characters).
3. A word whose chain gets stuck (a slot with no piece) is `unknown_token`, as
   are words that are one piece whatever they hold; the pieces are then
   compacted in order with their byte offsets.
"""

from __future__ import annotations

from typing import NamedTuple

import tensorflow as tf

from tf_wordpiece.numeric.tables import ROOT, WalkTables
from tf_wordpiece.numeric.words import Slots, word_sum

# Past this many steps a walk is a `tf.while_loop` that stops once every walk has (vocabularies with very long
# tokens); below it, steps are unrolled: no loop for TFLite and TF.js to run step by step, and one XLA cluster.
MAX_UNROLLED_STEPS = 32
# Steps all slots walk together before the ones still going go on alone: after 5, 3% (multilingual) to 12%
# (English) of the words' characters are still going, and the fewest slot-steps are walked in all (a few more
# together, or many more alone, either way).
COMPACT_AFTER = 5


class PieceArrays(NamedTuple):
    """The pieces of a batch in order, each int32 [P] (in a padded batch [C], valid below `count`).

    ids; begin, end: byte offsets in the piece's string (`end` exclusive); word: each piece's word.
    Per word ([W], valid below num_words): word_row, each word's string.
    """

    count: tf.Tensor
    ids: tf.Tensor
    begin: tf.Tensor
    end: tf.Tensor
    word: tf.Tensor
    num_words: tf.Tensor
    word_row: tf.Tensor


class PieceMatcher:
    """Stage 2's tables as constants, and the stage itself (`__call__`): the numeric core's piece matching
    (the string core's is `tf_wordpiece.bert.wordpiece.WordpieceTokenizer` and its matchers).

    max_word_slots: the most slots a word that is not one whole piece can have
    (the word-length limit), or None for no limit.
    """

    def __init__(self, walk: WalkTables, *, unknown_id: int, added_ids: list[int], max_word_slots: int | None):
        self.unknown_id = unknown_id
        self.suffix_root = walk.suffix_root
        self.root_base, self.suffix_base = int(walk.base[ROOT]), int(walk.base[walk.suffix_root])
        self.dead = walk.dead
        longest = walk.depth if max_word_slots is None else min(walk.depth, max_word_slots)
        self.steps = max(longest, 1)
        self.rounds = max(1, (max_word_slots - 1).bit_length()) if max_word_slots else 31
        with tf.init_scope():  # eager constants, even when built inside a tf.function
            self._check = tf.constant(walk.check)
            self._base = tf.constant(walk.base)
            self._last_token = tf.constant(walk.last_token)
            self._last_length = tf.constant(walk.last_length)
            self._added_ids = tf.constant(added_ids or [0], tf.int32)

    def __call__(self, slots: Slots, *, padded: bool) -> PieceArrays:
        """Stage 2 on stage 1's slots; `padded`: keep the size C (XLA), else exactly P pieces."""
        size = tf.shape(slots.char)[0]
        position = tf.range(size)
        best = self._walk(slots.char, slots.word_start, padded=padded)  # each slot's longest piece's node
        piece_length = tf.gather(self._last_length, best)

        word_first = tf.gather(slots.first, slots.word)
        jump = position + piece_length  # a slot with no piece jumps to itself
        if padded:
            on_chain = self._chains(tf.concat([jump, [size]], 0), word_first, position)
        else:  # only the words whose first piece is not all of them (a small share) need chains
            one_piece = tf.gather(tf.concat([piece_length, [0]], 0), slots.first) >= slots.length
            needs = slots.kept & ~tf.gather(one_piece | slots.whole, slots.word)
            at = tf.cast(tf.reshape(tf.where(needs), [-1]), tf.int32)
            index = tf.cumsum(tf.cast(needs, tf.int32), exclusive=True)  # in `at`, of each slot that needs one
            index_of = tf.concat([index, [tf.size(at)]], 0)  # (a word's end may be the last slot + 1)
            chained = self._chains(
                tf.gather(index_of, tf.concat([tf.gather(jump, at), [size]], 0)),
                tf.gather(index, tf.gather(word_first, at)),
                tf.range(tf.size(at)),
            )
            on_chain = tf.where(needs, tf.gather(tf.concat([chained, [False]], 0), index), slots.word_start)
        stuck = tf.cast(on_chain & slots.kept & tf.equal(piece_length, 0), tf.int32)
        broken = word_sum(slots, stuck) > 0
        whole = tf.gather(slots.whole | broken, slots.word)

        is_piece = slots.kept & tf.where(whole, slots.word_start, on_chain)
        num_words = tf.reduce_sum(tf.cast(slots.word_start, tf.int32))
        # The pieces' slots in order; then everything else about them, for them alone.
        if padded:
            index = tf.where(is_piece, tf.cumsum(tf.cast(is_piece, tf.int32)) - 1, size)[:, None]
            at = tf.scatter_nd(index, position, [size + 1])[:size]
            first = slots.first[:size]
        else:
            at = tf.cast(tf.reshape(tf.where(is_piece), [-1]), tf.int32)
            first = slots.first[:num_words]
        word = tf.gather(slots.word, at)
        whole = tf.gather(whole, at)
        whole_id = self.unknown_id
        if slots.added is not None:
            added_index = tf.gather(slots.added_index, at)
            whole_id = tf.where(added_index >= 0, tf.gather(self._added_ids, tf.maximum(added_index, 0)), whole_id)
        word_end = tf.gather(slots.first + slots.length, word)
        end = tf.where(whole, word_end, at + tf.gather(piece_length, at))  # the slot after the piece
        source = slots.source
        return PieceArrays(
            count=tf.reduce_sum(tf.cast(is_piece, tf.int32)),
            ids=tf.where(whole, whole_id, tf.gather(self._last_token, tf.gather(best, at))),
            begin=tf.gather(slots.byte_offset, tf.gather(source, at)),
            end=tf.gather(slots.byte_end, tf.gather(source, tf.maximum(end - 1, 0))),
            word=word,
            num_words=num_words,
            word_row=tf.gather(slots.byte_row, tf.gather(source, tf.minimum(first, size - 1))),
        )

    def _chains(self, jump: tf.Tensor, first: tf.Tensor, position: tf.Tensor) -> tf.Tensor:
        """bool [M]: the slot starts a piece of its word (its chain from the word's first slot reaches it).

        jump: int32 [M + 1], each slot's jump (the last entry: past the end, jumping to itself);
        first: int32 [M], each slot's word's first slot; position: int32 [M], each slot's own.
        """
        jumps = [jump]
        for _ in range(self.rounds - 1):
            jumps.append(tf.gather(jumps[-1], jumps[-1]))
        at = first  # the furthest piece start of the word at or before the slot, 2**k jumps at a time
        for jump in reversed(jumps):
            further = tf.gather(jump, at)
            at = tf.where(further <= position, further, at)
        return tf.equal(at, position)

    def _walk(self, char: tf.Tensor, word_start: tf.Tensor, *, padded: bool) -> tf.Tensor:
        """int32 [C]: the node of the longest piece that starts at each slot (whose `last_token`, `last_length`).

        A step reads check and base at `base + char`: the edge exists where
        check is the walk's node, and base is then the next step's. After
        `COMPACT_AFTER` steps the walks still going (a small share: most
        pieces are short) go on alone: gathered (`tf.where`) for exact sizes,
        scattered into an eighth of the slots for padded ones (XLA; all slots
        go on when more than that are still going).
        """
        steps = self.steps
        size = tf.shape(char)[0]
        ahead = tf.concat([char, tf.zeros([steps], tf.int32)], 0)  # the character k steps ahead: ahead[k:k - steps]
        node = tf.where(word_start, ROOT, self.suffix_root)
        walks = (node, tf.where(word_start, self.root_base, self.suffix_base), tf.identity(node))
        together = min(steps, COMPACT_AFTER)
        walks = self._steps(lambda k: ahead[k : k - steps], 0, together, walks)
        best = walks[2]
        if together < steps:
            going = tf.not_equal(walks[0], self.dead)

            def alone(room=None):
                """The walks still going, apart, to the end; their best nodes at their slots."""
                if room is None:
                    at = tf.cast(tf.reshape(tf.where(going), [-1]), tf.int32)
                    apart = [at] + [tf.gather(t, at) for t in walks]
                else:  # padding nodes are dead: they never move
                    index = tf.cumsum(tf.cast(going, tf.int32)) - 1  # among the walks still going
                    spot = tf.where(going, index, room)[:, None]
                    fills = (0, self.dead, 0, 0)
                    apart = [
                        tf.scatter_nd(spot, t - f, [room + 1])[:room] + f
                        for t, f in zip((tf.range(size), *walks), fills)
                    ]
                at, *apart = apart
                apart = self._steps(lambda k: tf.gather(ahead, at + k), together, steps, tuple(apart))
                if room is not None:
                    ended = tf.concat([apart[2], [ROOT]], 0)  # never empty: an index of 0 must read something
                    return tf.where(going, tf.gather(ended, tf.maximum(index, 0)), best)
                moved = tf.scatter_nd(at[:, None], apart[2] + 1, [size]) - 1  # a few values: cheaper than a gather
                return tf.where(going, moved, best)

            if not padded:
                best = alone()
            else:
                room = size // 8
                best = tf.cond(
                    tf.reduce_sum(tf.cast(going, tf.int32)) <= room,
                    lambda: alone(room),
                    lambda: self._steps(lambda k: ahead[k : k - steps], together, steps, walks)[2],
                )
        return best

    def _steps(self, chars_at, first: int, last: int, walks: tuple) -> tuple:
        """Steps `first` to `last` - 1 of the walks (node, base, best), each reading `chars_at(k)`.

        Unrolled up to MAX_UNROLLED_STEPS; past that a `tf.while_loop` that stops once every walk has.
        """

        def step(k, node, base, best):
            child = base + chars_at(k)
            check, base = tf.gather(self._check, child), tf.gather(self._base, child)
            taken = tf.equal(check, node)
            return tf.where(taken, child, self.dead), base, tf.where(taken, child, best)

        if last - first <= MAX_UNROLLED_STEPS:
            for k in range(first, last):
                walks = step(k, *walks)
            return walks
        # Every loop variable starts from a tensor of its own: TF.js mixes up loop variables that share one.
        state = (tf.constant(first), *(tf.identity(t) for t in walks))
        state = tf.while_loop(
            lambda k, node, base, best: (k < last) & tf.reduce_any(tf.not_equal(node, self.dead)),
            lambda k, *walks: (k + 1, *step(k, *walks)),
            state,
        )
        return state[1:]
