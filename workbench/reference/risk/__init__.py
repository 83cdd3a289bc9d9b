"""The risk vocabulary (data) and the classifier that labels tasks and paths with review-risk concepts."""

from .concepts import Vocabulary, compile_vocabulary, default_vocabulary, load_vocabulary, risk_concepts

__all__ = ["Vocabulary", "compile_vocabulary", "default_vocabulary", "load_vocabulary", "risk_concepts"]
