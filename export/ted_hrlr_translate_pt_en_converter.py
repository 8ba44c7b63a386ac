"""Recipe: TensorFlow's subword tutorial converter (`ted_hrlr_translate_pt_en_converter`), with tf_wordpiece.

    python export/ted_hrlr_translate_pt_en_converter.py [--out DIR] [--input pairs.tsv | --tfds NAME] [--overwrite]

The same as `tf-wordpiece export`: learns pt and en vocabularies (8000 tokens,
reserved [PAD] [UNK] [START] [END], lower_case=True), builds a tf.Module with
`.pt` and `.en` CustomTokenizers, saves it atomically with its zip archive, then
reloads it and prints the tutorial's round trip. The SavedModel needs only core
TensorFlow to load and run.
"""

import sys

from tf_wordpiece.cli import main

if __name__ == "__main__":
    sys.exit(main(["export", *sys.argv[1:]]))
