"""SavedModels: the tutorial's CustomTokenizer module and the pt/en converter."""
