"""Learning a WordPiece vocabulary: word counts -> the learner (tensorflow_text's algorithm); Beam for scale."""
